package service_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/testdb"
)

// FuzzDecodeNewUpload feeds arbitrary JSON to the upload-url decoder: it never panics, every
// refusal is a validation_error with paths, and an accepted body holds a plain file name, a
// media type and a size in range (or none).
func FuzzDecodeNewUpload(f *testing.F) {
	for _, s := range []string{
		`{"filename":"a.png","content_type":"image/png","size":3}`,
		`{"parent":{"type":"page_id","page_id":"7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"},"filename":"r.pdf","content_type":"application/pdf","size":0}`,
		`{"filename":"../x","content_type":"text/plain; charset=utf-8","size":1.5}`,
		`{"filename":"a\\b","content_type":"png","size":-1,"mode":"single_part"}`,
		`{"parent":"x","filename":"","size":"3"}`,
		`{"filename":"a.png","content_type":"image/png","content_length":3,"size":null}`,
		`{"filename":"a.png","content_type":"image/png","content_length":3,"size":4}`,
		`{"filename":"a.png","content_type":"image/png"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var body map[string]any
		if json.Unmarshal([]byte(s), &body) != nil {
			return
		}
		u, err := service.DecodeNewUpload(body)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if u.Name == "" || len(u.Name) > 255 || !utf8.ValidString(u.Name) || strings.ContainsAny(u.Name, "/\\\x00") ||
			u.Name == "." || u.Name == ".." {
			t.Fatalf("accepted file name %q", u.Name)
		}
		if !strings.Contains(u.ContentType, "/") || u.Size < service.SizeUnknown || u.Size > service.MaxFileSize {
			t.Fatalf("accepted %+v", u)
		}
		if u.ParentID != "" && !quire.ValidID(u.ParentID) {
			t.Fatalf("accepted parent %q", u.ParentID)
		}
	})
}

// FuzzPresentFiles feeds arbitrary JSON documents to the read-side rewrite of stored upload
// references: valid JSON stays valid JSON, with no stored reference left, and anything else
// never panics.
func FuzzPresentFiles(f *testing.F) {
	id := "7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"
	for _, s := range []string{
		`{"icon":{"type":"file_upload","file_upload":{"id":"` + id + `"}}}`,
		`{"image":{"caption":[],"type":"file_upload","file_upload":{"id":"` + id + `"}},"x":"\"type\":\"file_upload\",\"file_upload\":{\"id\":\"` + id + `\"}"}`,
		`["\"type\":\"file_upload\",\"file_upload\":{\"id\":\"` + id + `\"}"]`,
		`{"type":"file_upload","file_upload":{"id":"not-an-id"}}`,
		`{"type":"file_upload","file_upload":{"id":"` + id + `"`,
	} {
		f.Add(s)
	}
	svc := service.New(testdb.SQLite(f), service.Options{BaseURL: "http://q.test"})
	f.Fuzz(func(t *testing.T, s string) {
		out := svc.PresentFiles(context.Background(), []byte(s))
		if !json.Valid([]byte(s)) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("PresentFiles(%s) = %s: not JSON", s, out)
		}
		if again := svc.PresentFiles(context.Background(), out); string(again) != string(out) {
			t.Fatalf("PresentFiles is not done in one pass: %s then %s", out, again)
		}
		var in, got any
		_ = json.Unmarshal([]byte(s), &in)
		_ = json.Unmarshal(out, &got)
		if !sameExceptFiles(in, got) {
			t.Fatalf("PresentFiles(%s) = %s: changed more than upload references", s, out)
		}
	})
}

// sameExceptFiles reports whether out equals in, except that upload references of in may
// have become served file objects.
func sameExceptFiles(in, out any) bool {
	switch a := in.(type) {
	case map[string]any:
		b, ok := out.(map[string]any)
		if !ok {
			return false
		}
		if isUpload(a) && isServed(b) {
			a, b = without(a, "type", "file_upload"), without(b, "type", "file")
		}
		if len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !sameExceptFiles(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := out.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameExceptFiles(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(in, out)
}

func isUpload(m map[string]any) bool {
	fu, ok := m["file_upload"].(map[string]any)
	id, _ := fu["id"].(string)
	return ok && m["type"] == "file_upload" && len(fu) == 1 && quire.ValidID(id)
}

func isServed(m map[string]any) bool {
	f, ok := m["file"].(map[string]any)
	u, _ := f["url"].(string)
	oss, _ := f["oss_name"].(string)
	return ok && m["type"] == "file" && len(f) == 3 && strings.HasPrefix(u, "http://q.test/v2/files/") && f["expiry_time"] != nil &&
		quire.ValidID(oss)
}

func without(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}
