package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// localFiles is a file backend in a temp folder.
func localFiles(t testing.TB) *filestore.Local {
	t.Helper()
	l, err := filestore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// announce asks for an upload URL and returns the file_upload object.
func (e *env) announce(token string, body map[string]any) map[string]any {
	e.t.Helper()
	r := e.do(http.MethodPost, "/v2/files/upload-url", token, body)
	if r.status != http.StatusOK {
		e.t.Fatalf("upload-url: %d %s", r.status, r.raw)
	}
	return r.body
}

// put sends body to a signed upload URL with no token; length -1 sends it chunked.
func (e *env) put(uploadURL, contentType string, body io.Reader, length int64) *response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPut, uploadURL, body)
	if err != nil {
		e.t.Fatal(err)
	}
	req.ContentLength = length
	if length < 0 {
		req.ContentLength = -1
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return e.send(req)
}

// fetch GETs an absolute URL with no token.
func (e *env) fetch(u string) *response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.send(req)
}

func (e *env) send(req *http.Request) *response {
	e.t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	return decodeResponse(e.t, res)
}

// decodeResponse reads an answer, decoding a JSON body.
func decodeResponse(t testing.TB, res *http.Response) *response {
	t.Helper()
	r := &response{status: res.StatusCode, header: res.Header}
	r.raw, _ = io.ReadAll(res.Body)
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") && len(r.raw) > 0 {
		if err := json.Unmarshal(r.raw, &r.body); err != nil {
			t.Fatalf("answer is not JSON: %v: %s", err, r.raw)
		}
	}
	return r
}

// uploaded announces and uploads data, returning the upload's id.
func (e *env) uploaded(token, name, contentType string, data []byte, parent string) string {
	e.t.Helper()
	body := map[string]any{"filename": name, "content_type": contentType, "size": len(data)}
	if parent != "" {
		body["parent"] = map[string]any{"page_id": parent}
	}
	up := e.announce(token, body)
	if r := e.put(up["upload_url"].(string), contentType, bytes.NewReader(data), int64(len(data))); r.status != http.StatusOK {
		e.t.Fatalf("PUT: %d %s", r.status, r.raw)
	}
	return up["id"].(string)
}

// newPage creates a top-level page and returns its id.
func (e *env) newPage(title string) string {
	e.t.Helper()
	r := e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": map[string]any{"workspace": true},
		"properties": map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": title}}}}})
	if r.status != http.StatusOK {
		e.t.Fatalf("create page: %d %s", r.status, r.raw)
	}
	return r.body["id"].(string)
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// TestFiles_UploadAndReadBack walks the whole flow: announce, PUT with no token, read the
// bytes back, use the upload in a block, an icon and a cover, read them back as fresh signed
// URLs, write the read shape back, and ask for a download URL.
func TestFiles_UploadAndReadBack(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.newPage("Photos")
		data := []byte("\x89PNG\r\n\x1a\n not really a picture")

		up := e.announce(e.full, map[string]any{"parent": map[string]any{"type": "page_id", "page_id": page},
			"filename": "cat picture.png", "content_type": "image/PNG", "size": len(data)})
		id := up["id"].(string)
		got := map[string]any{}
		for k, v := range up {
			got[k] = v
		}
		delete(got, "upload_url")
		delete(got, "expires_time")
		delete(got, "file_url")
		if up["expiry_time"] != up["expires_time"] || up["file_url"] != dig(up, "file", "file", "url") {
			t.Fatalf("expiry_time or file_url differ from their twins: %v", up)
		}
		delete(got, "expiry_time")
		got["file"] = map[string]any{"type": dig(up, "file", "type"), "name": dig(up, "file", "name")}
		want := map[string]any{"object": "file_upload", "id": id, "method": "PUT", "headers": map[string]any{"Content-Type": "image/png"},
			"status": "pending", "filename": "cat picture.png", "content_type": "image/png", "content_length": float64(len(data)),
			"size": float64(len(data)), "oss_name": id, "file": map[string]any{"type": "file", "name": "cat picture.png"}}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("upload object (-want +got):\n%s", d)
		}
		uploadURL := up["upload_url"].(string)
		if !strings.HasPrefix(uploadURL, e.srv.URL+"/v2/files/"+id+"/upload?") {
			t.Fatalf("upload_url = %s", uploadURL)
		}
		fileURL := dig(up, "file", "file", "url").(string)
		if r := e.fetch(fileURL); r.status != http.StatusNotFound {
			t.Fatalf("file URL before the upload: %d %s", r.status, r.raw)
		}

		r := e.put(uploadURL, "image/png", bytes.NewReader(data), int64(len(data)))
		if r.status != http.StatusOK || r.body["status"] != "uploaded" || r.body["id"] != id {
			t.Fatalf("PUT: %d %s", r.status, r.raw)
		}
		r = e.fetch(fileURL)
		if r.status != http.StatusOK || !bytes.Equal(r.raw, data) {
			t.Fatalf("GET file: %d %q", r.status, r.raw)
		}
		wantHeaders := map[string]string{"Content-Type": "image/png", "Content-Disposition": `inline; filename="cat picture.png"`,
			"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox"}
		for k, v := range wantHeaders {
			if r.header.Get(k) != v {
				t.Errorf("%s = %q, want %q", k, r.header.Get(k), v)
			}
		}

		// A block, an icon and a cover use it, and read back as fresh signed URLs.
		r = e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{
			map[string]any{"image": map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": id}}},
			map[string]any{"callout": map[string]any{"rich_text": []any{}, "icon": map[string]any{"file_upload": map[string]any{"id": id}}}},
		}})
		if r.status != http.StatusOK {
			t.Fatalf("append: %d %s", r.status, r.raw)
		}
		img := r.body["results"].([]any)[0].(map[string]any)
		checkServedFile(t, e, dig(img, "image"), data)
		checkServedFile(t, e, dig(r.body["results"].([]any)[1], "callout", "icon"), data)
		r = e.do(http.MethodPatch, "/v2/pages/"+page, e.full, map[string]any{
			"icon":  map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": id}},
			"cover": map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": id}}})
		if r.status != http.StatusOK {
			t.Fatalf("patch page: %d %s", r.status, r.raw)
		}
		r = e.do(http.MethodGet, "/v2/pages/"+page, e.full, nil)
		checkServedFile(t, e, r.body["icon"], data)
		checkServedFile(t, e, r.body["cover"], data)

		// The read shape written back names the same upload.
		served := dig(img, "image").(map[string]any)
		r = e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{
			map[string]any{"pdf": map[string]any{"type": "file", "file": served["file"]}}}})
		if r.status != http.StatusOK {
			t.Fatalf("append read shape: %d %s", r.status, r.raw)
		}
		blockID := r.body["results"].([]any)[0].(map[string]any)["id"].(string)
		var content string
		if err := st.InTx(context.Background(), func(tx *store.Tx) error {
			b, err := tx.Block(context.Background(), e.ws.ID, blockID)
			content = string(b.Content)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if want := `"type":"file_upload","file_upload":{"id":"` + id + `"}`; !strings.Contains(content, want) {
			t.Fatalf("stored content %s lacks %s", content, want)
		}

		// Markdown export links the image by a signed URL.
		r = e.do(http.MethodGet, "/v2/pages/"+page+"/content/markdown", e.full, nil)
		md, _ := r.body["markdown"].(string)
		m := regexp.MustCompile(`!\[\]\((http://[^ )]+/v2/files/` + id + `/content\?[^ )]+)\)`).FindStringSubmatch(md)
		if r.status != http.StatusOK || m == nil {
			t.Fatalf("markdown: %d %q, want an image linked by its signed URL", r.status, md)
		}
		if got := e.fetch(strings.ReplaceAll(m[1], `\&`, "&")); got.status != http.StatusOK || !bytes.Equal(got.raw, data) {
			t.Fatalf("GET markdown image: %d", got.status)
		}

		r = e.do(http.MethodGet, "/v2/files/download-url?file_id="+id, e.full, nil)
		if r.status != http.StatusOK || r.body["object"] != "file_download" || r.body["expires_time"] == nil {
			t.Fatalf("download-url: %d %s", r.status, r.raw)
		}
		if f := e.fetch(r.body["url"].(string)); f.status != http.StatusOK || !bytes.Equal(f.raw, data) {
			t.Fatalf("GET download url: %d %q", f.status, f.raw)
		}
	})
}

// checkServedFile asserts v is {"type":"file","file":{"url","expiry_time"}} whose URL serves data.
func checkServedFile(t *testing.T, e *env, v any, data []byte) {
	t.Helper()
	m, _ := v.(map[string]any)
	if m["type"] != "file" || m["file_upload"] != nil {
		t.Fatalf("not a served file: %v", v)
	}
	f, _ := m["file"].(map[string]any)
	if len(f) != 3 || f["expiry_time"] == nil || !quire.ValidID(fmt.Sprint(f["oss_name"])) {
		t.Fatalf("file object %v, want url, expiry_time and oss_name", f)
	}
	if r := e.fetch(f["url"].(string)); r.status != http.StatusOK || !bytes.Equal(r.raw, data) {
		t.Fatalf("GET %s: %d %q", f["url"], r.status, r.raw)
	}
}

// TestFiles_UploadURLValidation checks that every malformed announcement answers the error
// body with its path, and records nothing.
func TestFiles_UploadURLValidation(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.newPage("Docs")
		trashed := e.newPage("Old")
		if r := e.do(http.MethodDelete, "/v2/pages/"+trashed, e.full, nil); r.status != 200 {
			t.Fatalf("trash: %d %s", r.status, r.raw)
		}
		readOnly := e.token([]quire.Scope{quire.PagesRead, quire.BlocksRead}, true)
		other := e.token(quire.AllScopes, false, e.newPage("Elsewhere"))
		ok := func(extra map[string]any) map[string]any {
			b := map[string]any{"filename": "a.txt", "content_type": "text/plain", "size": 3}
			for k, v := range extra {
				if v == nil {
					delete(b, k)
				} else {
					b[k] = v
				}
			}
			return b
		}
		cases := []struct {
			name       string
			token      string
			body       any
			wantStatus int
			wantCode   string
			wantPath   string
		}{
			{"no token", "", ok(nil), 401, "unauthorized", ""},
			{"no pages.write", readOnly, ok(nil), 403, "forbidden", ""},
			{"not json", e.full, "{", 400, "invalid_json", ""},
			{"unknown field", e.full, ok(map[string]any{"mode": "single_part"}), 400, "validation_error", "mode"},
			{"filename missing", e.full, ok(map[string]any{"filename": nil}), 400, "validation_error", "filename"},
			{"filename not a string", e.full, ok(map[string]any{"filename": 7}), 400, "validation_error", "filename"},
			{"filename empty", e.full, ok(map[string]any{"filename": ""}), 400, "validation_error", "filename"},
			{"filename a path", e.full, ok(map[string]any{"filename": "../../etc/passwd"}), 400, "validation_error", "filename"},
			{"filename with a backslash", e.full, ok(map[string]any{"filename": `..\boot.ini`}), 400, "validation_error", "filename"},
			{"filename dot dot", e.full, ok(map[string]any{"filename": ".."}), 400, "validation_error", "filename"},
			{"filename with NUL", e.full, ok(map[string]any{"filename": "a\x00.txt"}), 400, "validation_error", "filename"},
			{"filename with newline", e.full, ok(map[string]any{"filename": "a\r\nSet-Cookie: x"}), 400, "validation_error", "filename"},
			{"filename with bidi override", e.full, ok(map[string]any{"filename": "gpj.\u202eexe"}), 400, "validation_error", "filename"},
			{"filename too long", e.full, ok(map[string]any{"filename": strings.Repeat("a", 256)}), 400, "validation_error", "filename"},
			{"content type missing", e.full, ok(map[string]any{"content_type": nil}), 400, "validation_error", "content_type"},
			{"content type malformed", e.full, ok(map[string]any{"content_type": "png"}), 400, "validation_error", "content_type"},
			{"size and content_length differ", e.full, ok(map[string]any{"content_length": 4}), 400, "validation_error", "content_length"},
			{"content_length over 5 GiB", e.full, ok(map[string]any{"size": nil, "content_length": 5<<30 + 1}), 400, "validation_error", "content_length"},
			{"size a string", e.full, ok(map[string]any{"size": "3"}), 400, "validation_error", "size"},
			{"size negative", e.full, ok(map[string]any{"size": -1}), 400, "validation_error", "size"},
			{"size fractional", e.full, ok(map[string]any{"size": 1.5}), 400, "validation_error", "size"},
			{"size over 5 GiB", e.full, ok(map[string]any{"size": 5<<30 + 1}), 400, "validation_error", "size"},
			{"parent not an object", e.full, ok(map[string]any{"parent": "x"}), 400, "validation_error", "parent"},
			{"parent database", e.full, ok(map[string]any{"parent": map[string]any{"database_id": page}}), 400, "validation_error", "parent.database_id"},
			{"parent id malformed", e.full, ok(map[string]any{"parent": map[string]any{"page_id": "nope"}}), 400, "validation_error", "parent.page_id"},
			{"parent unknown", e.full, ok(map[string]any{"parent": map[string]any{"page_id": quire.NewID()}}), 404, "not_found", ""},
			{"parent out of reach", other, ok(map[string]any{"parent": map[string]any{"page_id": page}}), 404, "not_found", ""},
			{"parent in trash", e.full, ok(map[string]any{"parent": map[string]any{"page_id": trashed}}), 400, "validation_error", "parent.page_id"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPost, "/v2/files/upload-url", tc.token, tc.body)
				r.wantError(t, tc.wantStatus, tc.wantCode, tc.wantPath)
			})
		}
		if n := countFiles(t, st); n != 0 {
			t.Fatalf("%d files recorded by refused announcements", n)
		}
		// Every problem at once.
		r := e.do(http.MethodPost, "/v2/files/upload-url", e.full, map[string]any{"filename": "a/b", "size": -2})
		r.wantError(t, 400, "validation_error", "")
		var paths []string
		for _, d := range r.body["details"].([]any) {
			paths = append(paths, d.(map[string]any)["path"].(string))
		}
		if d := cmp.Diff([]string{"filename", "content_type", "size"}, paths); d != "" {
			t.Fatalf("detail paths (-want +got):\n%s", d)
		}
	})
}

func countFiles(t *testing.T, st *store.Store) int {
	t.Helper()
	var n int
	err := st.InTx(context.Background(), func(tx *store.Tx) error {
		return tx.QueryRowForTest(context.Background(), `SELECT COUNT(*) FROM files`).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFiles_DatabasesAndRecords: database icons and covers, and a record's icon, cover and
// content, name uploads as pages do: a completed upload of the workspace reads back with a
// signed URL; anything else answers 400 at its path and writes nothing.
func TestFiles_DatabasesAndRecords(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		img := e.uploaded(e.full, "icon.png", "image/png", []byte("\x89PNG fake"), "")
		good := map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": img}}
		bad := map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": quire.NewID()}}
		home := e.newPage("Home")
		schema := map[string]any{"Name": map[string]any{"title": map[string]any{}}}

		r := e.do(http.MethodPost, "/v2/databases", e.full, map[string]any{"parent": pageParent(home), "title": []any{txt("DB")},
			"properties": schema, "icon": bad})
		wantDetail(t, r, 400, quire.CodeValidation, "icon.file_upload.id", quire.ReasonInvalidValue)
		r = e.do(http.MethodPost, "/v2/databases", e.full, map[string]any{"parent": pageParent(home), "title": []any{txt("DB")},
			"properties": schema, "icon": good, "cover": good})
		wantOK(t, r, 200)
		db := r.body["id"].(string)
		if u, _ := dig(r.body, "icon", "file", "url").(string); !strings.Contains(u, img) {
			t.Fatalf("database icon: %s", r.raw)
		}
		wantDetail(t, e.do(http.MethodPatch, "/v2/databases/"+db, e.full, map[string]any{"cover": bad}),
			400, quire.CodeValidation, "cover.file_upload.id", quire.ReasonInvalidValue)

		rec := map[string]any{"parent": dbParent(db), "properties": map[string]any{"Name": map[string]any{"title": []any{txt("R")}}}}
		rec["icon"] = bad
		wantDetail(t, e.do(http.MethodPost, "/v2/pages", e.full, rec), 400, quire.CodeValidation, "icon.file_upload.id", quire.ReasonInvalidValue)
		rec["icon"] = good
		rec["children"] = []any{map[string]any{"type": "image", "image": bad}}
		wantDetail(t, e.do(http.MethodPost, "/v2/pages", e.full, rec), 400, quire.CodeValidation, "children[0].image.file_upload.id", quire.ReasonInvalidValue)
		rec["children"] = []any{map[string]any{"type": "image", "image": good}}
		r = e.do(http.MethodPost, "/v2/pages", e.full, rec)
		wantOK(t, r, 200)
		if u, _ := dig(r.body, "icon", "file", "url").(string); !strings.Contains(u, img) {
			t.Fatalf("record icon: %s", r.raw)
		}
		// The refused writes left nothing: the database has the one record.
		q := e.do(http.MethodPost, "/v2/databases/"+db+"/query", e.full, map[string]any{})
		wantOK(t, q, 200)
		if n := len(q.body["results"].([]any)); n != 1 {
			t.Fatalf("records after refusals: %d", n)
		}
		// A token that reads the record may download the image its content uses.
		if d := e.do(http.MethodGet, "/v2/files/download-url?file_id="+img, e.token([]quire.Scope{quire.BlocksRead}, false, db), nil); d.status != 200 {
			t.Fatalf("download by a reader of the record: %d %s", d.status, d.raw)
		}
	})
}
