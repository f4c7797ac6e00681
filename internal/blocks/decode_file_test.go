package blocks

import (
	"testing"

	"github.com/quire-dev/quire/internal/quire"
)

// TestDecode_ossName checks the original service's shape of an upload written back,
// {"type":"file","file":{"oss_name",…}}: oss_name becomes the source's ID (for the service to
// resolve), url is then optional, size and content_type are accepted and dropped.
func TestDecode_ossName(t *testing.T) {
	cases := []struct {
		name, file string
		want       FileSource
		encoded    string
	}{
		{"oss_name with read-only fields", `{"oss_name":"` + id1 + `","size":9,"content_type":"image/png","expiry_time":null}`,
			FileSource{Type: "file", ID: id1}, `{"type":"file","file":{"oss_name":"` + id1 + `","expiry_time":null}}`},
		{"oss_name and url", `{"oss_name":"` + id1 + `","url":"https://x.test/a","expiry_time":"2030-01-01T00:00:00.000Z"}`,
			FileSource{Type: "file", ID: id1, URL: "https://x.test/a", ExpiryTime: "2030-01-01T00:00:00.000Z"},
			`{"type":"file","file":{"oss_name":"` + id1 + `","url":"https://x.test/a","expiry_time":"2030-01-01T00:00:00.000Z"}}`},
		{"url alone, as before", `{"url":"https://x.test/a"}`, FileSource{Type: "file", URL: "https://x.test/a"},
			`{"type":"file","file":{"url":"https://x.test/a","expiry_time":null}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bs, err := DecodeValue(decodeJSON(t, `[{"type":"image","image":{"type":"file","file":`+tc.file+`}}]`), "children", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := bs[0].Content.File; got == nil || *got != tc.want {
				t.Fatalf("file = %+v, want %+v", got, tc.want)
			}
			var p quire.Problems
			icon := DecodePageIcon(&p, "icon", decodeJSON(t, `{"type":"file","file":`+tc.file+`}`), true)
			if err := p.Err(); err != nil || string(icon) != tc.encoded {
				t.Fatalf("icon = %s, %v; want %s", icon, err, tc.encoded)
			}
		})
	}
	for _, tc := range []struct {
		name, file string
		want       []quire.Detail
	}{
		{"neither oss_name nor url", `{"size":3}`, []quire.Detail{det("children[0].image.file.url", "required")}},
		{"oss_name not a string", `{"oss_name":7,"url":"https://x.test/a"}`, []quire.Detail{det("children[0].image.file.oss_name", "invalid_type")}},
		{"unknown key", `{"oss_name":"` + id1 + `","bucket":"b"}`, []quire.Detail{det("children[0].image.file.bucket", "unknown_field")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeValue(decodeJSON(t, `[{"type":"image","image":{"type":"file","file":`+tc.file+`}}]`), "children", nil)
			checkDetails(t, err, tc.want)
		})
	}
}
