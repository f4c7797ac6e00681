package httpapi

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestFiles_References checks that blocks, icons and covers accept only completed uploads of
// the caller's workspace, each refusal naming the exact path, and that a refused write
// changes nothing.
func TestFiles_References(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.newPage("Gallery")
		done := e.uploaded(e.full, "a.png", "image/png", []byte("png"), "")
		pending := e.announce(e.full, map[string]any{"filename": "b.png", "content_type": "image/png", "size": 3})["id"].(string)

		// An upload of another workspace, through a second server on the same store.
		other := newEnv(t, st)
		foreign := other.uploaded(other.full, "c.png", "image/png", []byte("png"), "")

		para := map[string]any{"paragraph": map[string]any{"rich_text": []any{}}}
		img := func(src map[string]any) map[string]any { return map[string]any{"image": src} }
		upload := func(id string) map[string]any {
			return map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": id}}
		}
		served := func(u string) map[string]any {
			return map[string]any{"type": "file", "file": map[string]any{"url": u, "expiry_time": "2030-01-01T00:00:00.000Z"}}
		}
		toggle := func(children ...any) map[string]any {
			return map[string]any{"toggle": map[string]any{"rich_text": []any{}, "children": children}}
		}
		cases := []struct {
			name     string
			method   string
			path     string
			body     map[string]any
			wantPath string
		}{
			{"pending upload in a block", "PATCH", "/v2/blocks/" + page + "/children",
				map[string]any{"children": []any{para, para, para, img(upload(pending))}}, "children[3].image.file_upload.id"},
			{"unknown upload", "PATCH", "/v2/blocks/" + page + "/children",
				map[string]any{"children": []any{img(upload(quire.NewID()))}}, "children[0].image.file_upload.id"},
			{"upload of another workspace", "PATCH", "/v2/blocks/" + page + "/children",
				map[string]any{"children": []any{img(upload(foreign))}}, "children[0].image.file_upload.id"},
			{"nested block", "PATCH", "/v2/blocks/" + page + "/children",
				map[string]any{"children": []any{para, toggle(para, map[string]any{"video": upload(pending)})}}, "children[1].toggle.children[1].video.file_upload.id"},
			{"callout icon", "PATCH", "/v2/blocks/" + page + "/children",
				map[string]any{"children": []any{map[string]any{"callout": map[string]any{"rich_text": []any{}, "icon": upload(pending)}}}}, "children[0].callout.icon.file_upload.id"},
			{"a file URL of elsewhere", "PATCH", "/v2/blocks/" + page + "/children",
				map[string]any{"children": []any{map[string]any{"pdf": served("https://example.com/x.pdf")}}}, "children[0].pdf.file.url"},
			{"a file URL of a pending upload", "PATCH", "/v2/blocks/" + page + "/children",
				map[string]any{"children": []any{map[string]any{"file": served(e.srv.URL + "/v2/files/" + pending + "/content?expires=1&signature=x")}}}, "children[0].file.file.url"},
			{"page icon", "PATCH", "/v2/pages/" + page, map[string]any{"icon": upload(pending)}, "icon.file_upload.id"},
			{"page cover", "PATCH", "/v2/pages/" + page, map[string]any{"cover": upload(foreign)}, "cover.file_upload.id"},
			{"new page cover", "POST", "/v2/pages", map[string]any{"parent": map[string]any{"page_id": page}, "cover": upload(pending)}, "cover.file_upload.id"},
			{"new page children", "POST", "/v2/pages", map[string]any{"parent": map[string]any{"page_id": page},
				"children": []any{img(upload(done)), img(upload(pending))}}, "children[1].image.file_upload.id"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				before := e.do(http.MethodGet, "/v2/blocks/"+page+"/children", e.full, nil)
				pageBefore := e.do(http.MethodGet, "/v2/pages/"+page, e.full, nil)
				r := e.do(tc.method, tc.path, e.full, tc.body)
				r.wantError(t, 400, "validation_error", tc.wantPath)
				if d := r.body["details"].([]any); len(d) != 1 {
					t.Errorf("details = %v, want the one path", d)
				}
				after := e.do(http.MethodGet, "/v2/blocks/"+page+"/children", e.full, nil)
				if len(after.body["results"].([]any)) != len(before.body["results"].([]any)) {
					t.Errorf("a refused write added blocks")
				}
				if pageAfter := e.do(http.MethodGet, "/v2/pages/"+page, e.full, nil); pageAfter.header.Get("ETag") != pageBefore.header.Get("ETag") {
					t.Errorf("a refused write changed the page")
				}
			})
		}

		// PATCH of a block: the new upload is checked; the one it already holds is kept.
		r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{img(upload(done))}})
		if r.status != 200 {
			t.Fatalf("append: %d %s", r.status, r.raw)
		}
		blk := r.body["results"].([]any)[0].(map[string]any)["id"].(string)
		e.do(http.MethodPatch, "/v2/blocks/"+blk, e.full, map[string]any{"image": upload(pending)}).
			wantError(t, 400, "validation_error", "image.file_upload.id")
		r = e.do(http.MethodPatch, "/v2/blocks/"+blk, e.full, map[string]any{"image": map[string]any{
			"caption": []any{map[string]any{"text": map[string]any{"content": "A cat"}}}}})
		if r.status != 200 {
			t.Fatalf("caption: %d %s", r.status, r.raw)
		}
		checkServedFile(t, e, r.body["image"], []byte("png"))
	})
}

// TestFiles_DownloadAccess checks who gets a download URL: the uploader, and tokens that can
// read a page using the file; nobody else learns that it exists.
func TestFiles_DownloadAccess(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		used := e.newPage("Uses it")
		parent := e.newPage("Uploaded for")
		unrelated := e.newPage("Unrelated")
		inBlock := e.uploaded(e.full, "a.txt", "text/plain", []byte("block"), "")
		if r := e.do(http.MethodPatch, "/v2/blocks/"+used+"/children", e.full, map[string]any{"children": []any{
			map[string]any{"file": map[string]any{"file_upload": map[string]any{"id": inBlock}, "name": "a.txt"}}}}); r.status != 200 {
			t.Fatalf("append: %d %s", r.status, r.raw)
		}
		forParent := e.uploaded(e.full, "b.txt", "text/plain", []byte("parent"), parent)
		uploader := e.token([]quire.Scope{quire.PagesWrite, quire.BlocksRead}, false, unrelated)
		own := e.uploaded(uploader, "c.txt", "text/plain", []byte("own"), "")
		pending := e.announce(e.full, map[string]any{"filename": "d.txt", "content_type": "text/plain", "size": 1})["id"].(string)
		readsUsed := e.token([]quire.Scope{quire.BlocksRead}, false, used)
		readsParent := e.token([]quire.Scope{quire.BlocksRead}, false, parent)
		readsUnrelated := e.token([]quire.Scope{quire.BlocksRead}, false, unrelated)
		noBlocksRead := e.token([]quire.Scope{quire.PagesRead}, true)

		cases := []struct {
			name       string
			token      string
			query      string
			wantStatus int
			wantCode   string
			wantPath   string
			wantBody   string
		}{
			{"workspace token, file in a block", e.full, "file_id=" + inBlock, 200, "", "", "block"},
			{"token granted the page using it", readsUsed, "file_id=" + inBlock, 200, "", "", "block"},
			{"token granted the page it was uploaded for", readsParent, "file_id=" + forParent, 200, "", "", "parent"},
			{"the uploader, file used nowhere", uploader, "file_id=" + own, 200, "", "", "own"},
			{"workspace token, file used nowhere", e.full, "file_id=" + own, 404, "not_found", "", ""},
			{"token granted another page", readsUnrelated, "file_id=" + inBlock, 404, "not_found", "", ""},
			{"token granted another page, parent file", readsUsed, "file_id=" + forParent, 404, "not_found", "", ""},
			{"unknown file", e.full, "file_id=" + quire.NewID(), 404, "not_found", "", ""},
			{"pending upload", e.full, "file_id=" + pending, 400, "validation_error", "file_id", ""},
			{"file_id malformed", e.full, "file_id=nope", 400, "validation_error", "file_id", ""},
			{"file_id missing", e.full, "", 400, "validation_error", "file_id", ""},
			{"unknown parameter", e.full, "file_id=" + inBlock + "&x=1", 400, "validation_error", "", ""},
			{"no token", "", "file_id=" + inBlock, 401, "unauthorized", "", ""},
			{"no blocks.read", noBlocksRead, "file_id=" + inBlock, 403, "forbidden", "", ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodGet, "/v2/files/download-url?"+tc.query, tc.token, nil)
				if tc.wantStatus != 200 {
					r.wantError(t, tc.wantStatus, tc.wantCode, tc.wantPath)
					return
				}
				if r.status != 200 || len(r.body) != 7 || r.body["object"] != "file_download" {
					t.Fatalf("download-url: %d %s", r.status, r.raw)
				}
				if got := e.fetch(r.body["url"].(string)); got.status != 200 || !bytes.Equal(got.raw, []byte(tc.wantBody)) {
					t.Fatalf("GET url: %d %q", got.status, got.raw)
				}
			})
		}
	})
}

// fileCases are the conformance cases of the file operations.
func fileCases(t testing.TB, e *env, pagesOnly, unknown string) []conformanceCase {
	t.Helper()
	page := e.newPage("Files")
	id := e.uploaded(e.full, "report.pdf", "application/pdf", []byte("%PDF-1.7"), page)
	if r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{
		map[string]any{"pdf": map[string]any{"file_upload": map[string]any{"id": id}}}}}); r.status != 200 {
		t.Fatalf("fixture block: %d %s", r.status, r.raw)
	}
	if r := e.do(http.MethodPatch, "/v2/pages/"+page, e.full, map[string]any{
		"icon": map[string]any{"file_upload": map[string]any{"id": id}}}); r.status != 200 {
		t.Fatalf("fixture icon: %d %s", r.status, r.raw)
	}
	body := `{"parent":{"page_id":"` + page + `"},"filename":"photo.jpg","content_type":"image/jpeg","size":1024}`
	return []conformanceCase{
		{name: "create upload", op: "create-file-upload", method: "POST", path: "/v2/files/upload-url", token: e.full, status: 200, body: body},
		{name: "create upload size negative", op: "create-file-upload", method: "POST", path: "/v2/files/upload-url", token: e.full, status: 400,
			body: `{"filename":"a","content_type":"text/plain","size":-1}`},
		{name: "create upload path name", op: "create-file-upload", method: "POST", path: "/v2/files/upload-url", token: e.full, status: 400,
			body: `{"filename":"../a","content_type":"text/plain","size":1}`, semantic: true},
		{name: "create upload without token", op: "create-file-upload", method: "POST", path: "/v2/files/upload-url", status: 401, body: body},
		{name: "create upload without pages.write", op: "create-file-upload", method: "POST", path: "/v2/files/upload-url", token: pagesOnly, status: 403, body: body},
		{name: "create upload unknown parent", op: "create-file-upload", method: "POST", path: "/v2/files/upload-url", token: e.full, status: 404,
			body: strings.Replace(body, page, unknown, 1)},
		{name: "download url", op: "retrieve-file-download-url", path: "/v2/files/download-url?file_id=" + id, token: e.full, status: 200},
		// file_id or block_id with oss_name: a rule the document states in words only.
		{name: "download url missing file_id", op: "retrieve-file-download-url", path: "/v2/files/download-url", token: e.full, status: 400, semantic: true},
		{name: "download url by block_id and oss_name", op: "retrieve-file-download-url", path: "/v2/files/download-url?block_id=" + page + "&oss_name=" + id +
			"&filename=r.pdf&x_oss_process=image%2Fresize", token: e.full, status: 200},
		{name: "create upload with content_length", op: "create-file-upload", method: "POST", path: "/v2/files/upload-url", token: e.full, status: 200,
			body: `{"parent":{"page_id":"` + page + `","type":"page_id"},"filename":"a.png","content_type":"image/png","content_length":3}`},
		{name: "create upload without a size", op: "create-file-upload", method: "POST", path: "/v2/files/upload-url", token: e.full, status: 200,
			body: `{"filename":"a.png","content_type":"image/png","size":null}`},
		{name: "download url unknown file", op: "retrieve-file-download-url", path: "/v2/files/download-url?file_id=" + unknown, token: e.full, status: 404},
		{name: "download url without token", op: "retrieve-file-download-url", path: "/v2/files/download-url?file_id=" + id, status: 401},
		{name: "download url without blocks.read", op: "retrieve-file-download-url", path: "/v2/files/download-url?file_id=" + id, token: pagesOnly, status: 403},
		{name: "page with a file icon", op: "retrieve-page", path: "/v2/pages/" + page, token: e.full, status: 200},
		{name: "blocks with a file", op: "list-block-children", path: "/v2/blocks/" + page + "/children", token: e.full, status: 200},
	}
}
