package service

import "testing"

// TestFileIDFromURL checks which URLs a write may name a file by: Quire's own signed GET and
// presigned bucket URLs, and nothing else.
func TestFileIDFromURL(t *testing.T) {
	const id = "7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"
	for _, tc := range []struct {
		url, want string
	}{
		{"http://127.0.0.1:8080/v2/files/" + id + "/content?expires=1&signature=x", id},
		{"https://quire.example/base/v2/files/" + id + "/content", id},
		{"http://127.0.0.1:8080/v2/files/" + "7B0C2A8E-4F1D-4C3B-9A5E-2D6F8E1B3C4A" + "/content", id},
		{"http://127.0.0.1:9000/bucket/" + id + "?X-Amz-Signature=abc&X-Amz-Expires=3600", id},
		{"http://127.0.0.1:9000/bucket/" + id, ""},
		{"https://example.com/" + id + ".png", ""},
		{"https://example.com/v2/files/" + id + "/upload?expires=1&signature=x", ""},
		{"https://example.com/v2/files/../" + id + "/content", ""},
		{"https://example.com/v2/files/not-an-id/content", ""},
		{"::not a url", ""},
		{"", ""},
	} {
		got, ok := fileIDFromURL(tc.url)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("fileIDFromURL(%q) = %q, %v; want %q", tc.url, got, ok, tc.want)
		}
	}
}

// TestCheckFileName checks the file names an upload may announce.
func TestCheckFileName(t *testing.T) {
	for name, ok := range map[string]bool{
		"report.pdf": true, "Quarterly report (final).pdf": true, "写真.jpg": true, ".bashrc": true, "a": true,
		"": false, ".": false, "..": false, "../x": false, "a/b": false, `a\b`: false, "C:\\x": false,
		" a": false, "a ": false, "a\tb": false, "a\x00b": false, "a\x7fb": false, "\u202ecod.exe": false,
		"\xff\xfe": false, string(make([]byte, 256)): false,
	} {
		d, _ := checkFileName(name)
		if (d.Reason == "") != ok {
			t.Errorf("checkFileName(%q) = %+v; want accepted %v", name, d, ok)
		}
		if d.Reason != "" && d.Path != "filename" {
			t.Errorf("checkFileName(%q) at %q, want filename", name, d.Path)
		}
	}
}
