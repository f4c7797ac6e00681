package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/filestore/miniotest"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// The original service's file requests, sent as its clients send them (issue 14): upload-url
// with content_length or without a size, download-url by block_id and oss_name, and uploads
// written back as {"type":"file","file":{"oss_name",…}}.

// TestCompatFiles_UploadURL announces uploads in both documented shapes and reads the answer
// as the generated client does: expiry_time, oss_name, size and file_url at the top level.
func TestCompatFiles_UploadURL(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.newPage("Uploads")
		data := []byte("GIF89a and so on")
		cases := []struct {
			name     string
			body     map[string]any
			wantSize any // the answer's size before the PUT
			length   int64
		}{
			{"generated client: content_length", map[string]any{"parent": map[string]any{"page_id": page, "type": "page_id"},
				"filename": "a.gif", "content_type": "image/gif", "content_length": len(data)}, float64(len(data)), int64(len(data))},
			{"docs page: size", map[string]any{"parent": map[string]any{"page_id": page},
				"filename": "a.gif", "content_type": "image/gif", "size": len(data)}, float64(len(data)), int64(len(data))},
			{"both, equal", map[string]any{"filename": "a.gif", "content_type": "image/gif", "size": len(data), "content_length": len(data)},
				float64(len(data)), int64(len(data))},
			{"docs page: no size, PUT with Content-Length", map[string]any{"parent": map[string]any{"page_id": page},
				"filename": "a.gif", "content_type": "image/gif"}, nil, int64(len(data))},
			{"no size, null, PUT chunked", map[string]any{"filename": "a.gif", "content_type": "image/gif", "size": nil, "content_length": nil},
				nil, -1},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				up := e.announce(e.full, tc.body)
				id := up["id"].(string)
				got := map[string]any{}
				for _, k := range []string{"object", "method", "oss_name", "size", "content_length", "status"} {
					got[k] = up[k]
				}
				want := map[string]any{"object": "file_upload", "method": "PUT", "oss_name": id, "size": tc.wantSize,
					"content_length": tc.wantSize, "status": "pending"}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("answer (-want +got):\n%s", d)
				}
				if up["expiry_time"] != up["expires_time"] || up["expiry_time"] == nil {
					t.Fatalf("expiry_time %v, expires_time %v", up["expiry_time"], up["expires_time"])
				}
				// The docs page's shape is there too.
				if dig(up, "file", "type") != "file" || dig(up, "file", "name") != "a.gif" || dig(up, "file", "file", "url") != up["file_url"] {
					t.Fatalf("file = %v, file_url = %v", up["file"], up["file_url"])
				}
				if r := e.fetch(up["file_url"].(string)); r.status != http.StatusNotFound {
					t.Fatalf("file_url before the PUT: %d %s", r.status, r.raw)
				}
				r := e.put(up["upload_url"].(string), "image/gif", bytes.NewReader(data), tc.length)
				if r.status != 200 || r.body["status"] != "uploaded" || r.body["size"] != float64(len(data)) || r.body["content_length"] != float64(len(data)) {
					t.Fatalf("PUT: %d %s", r.status, r.raw)
				}
				if r := e.fetch(up["file_url"].(string)); r.status != 200 || !bytes.Equal(r.raw, data) {
					t.Fatalf("file_url after the PUT: %d %q", r.status, r.raw)
				}
				f, err := st.FileByID(context.Background(), id)
				if err != nil || f.Size != int64(len(data)) {
					t.Fatalf("stored size = %v (%v), want %d", f, err, len(data))
				}
			})
		}
		e.do(http.MethodPost, "/v2/files/upload-url", e.full, map[string]any{"filename": "a", "content_type": "text/plain",
			"size": 3, "content_length": 4}).wantError(t, 400, "validation_error", "content_length")
		e.do(http.MethodPost, "/v2/files/upload-url", e.full, map[string]any{"filename": "a", "content_type": "text/plain",
			"content_length": "3"}).wantError(t, 400, "validation_error", "content_length")
	})
}

// TestCompatFiles_UnsizedLimits checks an upload announced without a size: a declared
// Content-Length over 100 MiB is refused before a byte is read, a chunked body is cut off one
// byte past it, each with limit and actual, and nothing is left behind. The engine plays no
// part here, so SQLite alone.
func TestCompatFiles_UnsizedLimits(t *testing.T) {
	st := testdb.SQLite(t)
	local, err := filestore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, st, envOptions{files: local})
	announce := func() (string, string) {
		up := e.announce(e.full, map[string]any{"filename": "big.bin", "content_type": "application/octet-stream"})
		return up["id"].(string), up["upload_url"].(string)
	}
	limit := float64(service.MaxUnsizedFile)
	detail := func(r *response) map[string]any {
		t.Helper()
		r.wantError(t, 413, "payload_too_large", "size")
		return r.body["details"].([]any)[0].(map[string]any)
	}

	// The Content-Length alone is refused: sent by hand, without the body it announces.
	id, u := announce()
	if d := detail(rawPut(t, u, service.MaxUnsizedFile+1, "")); d["limit"] != limit || d["actual"] != limit+1 {
		t.Fatalf("detail = %v", d)
	}
	if f, _ := st.FileByID(context.Background(), id); f.Status != quire.FilePending {
		t.Fatalf("status after a refused Content-Length = %s, want pending", f.Status)
	}

	// A body that breaks off before its Content-Length: 400 at size, the URL used up.
	id, u = announce()
	rawPut(t, u, 100, "only ten b").wantError(t, 400, "validation_error", "size")
	if f, _ := st.FileByID(context.Background(), id); f.Status != quire.FileFailed || local.Exists(id) {
		t.Fatalf("after a body that broke off: status %s, stored %v", f.Status, local.Exists(id))
	}

	id, u = announce()
	body := io.LimitReader(zeros{}, service.MaxUnsizedFile+10)
	if d := detail(e.put(u, "application/octet-stream", body, -1)); d["limit"] != limit || d["actual"] != limit+1 {
		t.Fatalf("detail = %v", d)
	}
	if f, _ := st.FileByID(context.Background(), id); f.Status != quire.FileFailed || local.Exists(id) {
		t.Fatalf("after a chunked body over the limit: status %s, stored %v", f.Status, local.Exists(id))
	}
	if parts, _ := local.Partials(); len(parts) != 0 {
		t.Fatalf("partial files left: %v", parts)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// rawPut sends a PUT's head with Content-Length n and then body, which may be shorter, over
// a bare connection, closes its sending side and reads the answer: a client that announces a
// body too large is answered before sending it, and one whose body breaks off is answered too.
func rawPut(t *testing.T, rawURL string, n int64, body string) *response {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "PUT " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/octet-stream\r\n" +
		"Content-Length: " + strconv.FormatInt(n, 10) + "\r\n\r\n" + body
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	return decodeResponse(t, res)
}

// TestCompatFiles_S3Unsized runs uploads announced without a size against a real MinIO: with
// a Content-Length and chunked (spooled, then put with its length), read back through the
// presigned URLs.
func TestCompatFiles_S3Unsized(t *testing.T) {
	if miniotest.Binary() == "" {
		miniotest.Start(t) // skips, or fails under CI
	}
	st := testdb.SQLite(t)
	s3, err := filestore.NewS3(context.Background(), miniotest.Start(t))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, st, envOptions{files: s3})
	data := bytes.Repeat([]byte("unsized "), 5000)
	for _, length := range []int64{int64(len(data)), -1} {
		up := e.announce(e.full, map[string]any{"filename": "u.bin", "content_type": "application/octet-stream"})
		if r := e.put(up["upload_url"].(string), "application/octet-stream", bytes.NewReader(data), length); r.status != 200 ||
			r.body["size"] != float64(len(data)) {
			t.Fatalf("PUT (length %d): %d %s", length, r.status, r.raw)
		}
		if !strings.Contains(up["file_url"].(string), "X-Amz-Signature=") {
			t.Fatalf("file_url = %s, want a presigned bucket URL", up["file_url"])
		}
		if r := e.fetch(up["file_url"].(string)); r.status != 200 || !bytes.Equal(r.raw, data) {
			t.Fatalf("GET presigned: %d, %d bytes", r.status, len(r.raw))
		}
	}
}

// TestCompatFiles_WriteOssName writes uploads as the original service's clients send them
// back, {"type":"file","file":{"oss_name","size","content_type","url","expiry_time"}}, on a
// media block, a page icon and a cover, and reads them back by oss_name.
func TestCompatFiles_WriteOssName(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.newPage("Gallery")
		data := []byte("\x89PNG fake")
		id := e.uploaded(e.full, "cat.png", "image/png", data, "")
		sent := func(extra map[string]any) map[string]any {
			f := map[string]any{"oss_name": id, "size": len(data), "content_type": "image/png"}
			for k, v := range extra {
				f[k] = v
			}
			return map[string]any{"type": "file", "file": f}
		}
		stale := "https://cdn.example.com/old/cat.png?sig=x" // an old URL beside oss_name is not used
		for _, tc := range []struct {
			name string
			file map[string]any
		}{
			{"oss_name alone, with size and content_type", sent(nil)},
			{"with url and expiry_time", sent(map[string]any{"url": stale, "expiry_time": "2026-01-01T00:00:00.000Z"})},
			{"expiry_time null", sent(map[string]any{"expiry_time": nil})},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{
					map[string]any{"type": "image", "image": tc.file}}})
				if r.status != 200 {
					t.Fatalf("append: %d %s", r.status, r.raw)
				}
				img := dig(r.body["results"].([]any)[0], "image")
				checkServedFile(t, e, img, data)
				if dig(img, "file", "oss_name") != id {
					t.Fatalf("read back: %v, want oss_name %s", img, id)
				}
			})
		}

		// Page create and update: icon and cover.
		r := e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": map[string]any{"page_id": page},
			"icon": sent(nil), "cover": sent(map[string]any{"url": stale}),
			"properties": map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": "Cat"}}}}})
		if r.status != 200 {
			t.Fatalf("create page: %d %s", r.status, r.raw)
		}
		for _, k := range []string{"icon", "cover"} {
			checkServedFile(t, e, r.body[k], data)
			if dig(r.body, k, "file", "oss_name") != id {
				t.Fatalf("%s = %v", k, r.body[k])
			}
		}
		// The read shape, sent back whole, still names the upload.
		child := r.body["id"].(string)
		if r := e.do(http.MethodPatch, "/v2/pages/"+child, e.full, map[string]any{"icon": r.body["cover"]}); r.status != 200 ||
			dig(r.body, "icon", "file", "oss_name") != id {
			t.Fatalf("icon from the read cover: %d %s", r.status, r.raw)
		}

		pending := e.announce(e.full, map[string]any{"filename": "p.png", "content_type": "image/png", "size": 1})["id"].(string)
		for _, tc := range []struct {
			name, method, path string
			body               map[string]any
			wantPath           string
		}{
			{"unknown oss_name", http.MethodPatch, "/v2/blocks/" + page + "/children", map[string]any{"children": []any{
				map[string]any{"image": map[string]any{"type": "file", "file": map[string]any{"oss_name": quire.NewID()}}}}},
				"children[0].image.file.oss_name"},
			{"oss_name not an id", http.MethodPatch, "/v2/blocks/" + page + "/children", map[string]any{"children": []any{
				map[string]any{"video": map[string]any{"type": "file", "file": map[string]any{"oss_name": "upload/2024/cat.png"}}}}},
				"children[0].video.file.oss_name"},
			{"oss_name of a pending upload", http.MethodPatch, "/v2/blocks/" + page + "/children", map[string]any{"children": []any{
				map[string]any{"file": map[string]any{"type": "file", "file": map[string]any{"oss_name": pending}}}}},
				"children[0].file.file.oss_name"},
			{"oss_name not a string", http.MethodPatch, "/v2/blocks/" + page + "/children", map[string]any{"children": []any{
				map[string]any{"pdf": map[string]any{"type": "file", "file": map[string]any{"oss_name": 7}}}}},
				"children[0].pdf.file.oss_name"},
			{"neither oss_name nor url", http.MethodPatch, "/v2/blocks/" + page + "/children", map[string]any{"children": []any{
				map[string]any{"image": map[string]any{"type": "file", "file": map[string]any{"size": 3}}}}},
				"children[0].image.file.url"},
			{"unknown cover", http.MethodPatch, "/v2/pages/" + page, map[string]any{"cover": map[string]any{"type": "file",
				"file": map[string]any{"oss_name": quire.NewID()}}}, "cover.file.oss_name"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.do(tc.method, tc.path, e.full, tc.body).wantError(t, 400, "validation_error", tc.wantPath)
			})
		}
	})
}

// TestCompatFiles_DownloadURL asks for download URLs by block_id and oss_name, with the
// parameters the original service's clients add, and reads the answer's file object and ttl.
func TestCompatFiles_DownloadURL(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.newPage("Docs")
		other := e.newPage("Other")
		data := []byte("%PDF-1.7 fake")
		id := e.uploaded(e.full, "report.pdf", "application/pdf", data, "")
		icon := e.uploaded(e.full, "icon.png", "image/png", []byte("png"), "")
		ref := func(id string) map[string]any {
			return map[string]any{"type": "file", "file": map[string]any{"oss_name": id}}
		}
		r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{
			map[string]any{"pdf": ref(id)}, para("no file here")}})
		if r.status != 200 {
			t.Fatalf("append: %d %s", r.status, r.raw)
		}
		pdf := r.body["results"].([]any)[0].(map[string]any)["id"].(string)
		text := r.body["results"].([]any)[1].(map[string]any)["id"].(string)
		if r := e.do(http.MethodPatch, "/v2/pages/"+page, e.full, map[string]any{"icon": ref(icon)}); r.status != 200 {
			t.Fatalf("icon: %d %s", r.status, r.raw)
		}
		onlyOther := e.token(quire.AllScopes, false, other)

		for _, tc := range []struct {
			name, query, name2 string
			body               []byte
		}{
			{"media block", "block_id=" + pdf + "&oss_name=" + id, "report.pdf", data},
			{"with filename and image processing, ignored", "block_id=" + pdf + "&oss_name=" + id +
				"&filename=x.pdf&img_process=resize%2Cw_100&x_oss_process=image%2Fresize%2Cw_100", "report.pdf", data},
			{"page icon", "block_id=" + page + "&oss_name=" + icon, "icon.png", []byte("png")},
			{"file_id still", "file_id=" + id, "report.pdf", data},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodGet, "/v2/files/download-url?"+tc.query, e.full, nil)
				if r.status != 200 {
					t.Fatalf("download-url: %d %s", r.status, r.raw)
				}
				ttl, _ := r.body["ttl"].(float64)
				if r.body["object"] != "file_download" || r.body["type"] != "file" || r.body["name"] != tc.name2 ||
					dig(r.body, "file", "url") != r.body["url"] || dig(r.body, "file", "expiry_time") != r.body["expires_time"] ||
					ttl < 3590 || ttl > 3600 {
					t.Fatalf("answer: %s", r.raw)
				}
				oss := dig(r.body, "file", "oss_name").(string)
				if got := e.fetch(r.body["url"].(string)); got.status != 200 || !bytes.Equal(got.raw, tc.body) || !strings.Contains(tc.query, oss) {
					t.Fatalf("GET url: %d %q (oss_name %s)", got.status, got.raw, oss)
				}
			})
		}

		for _, tc := range []struct {
			name, token, query string
			wantStatus         int
			wantPath           string
		}{
			{"oss_name without block_id", e.full, "oss_name=" + id, 400, "block_id"},
			{"block_id without oss_name", e.full, "block_id=" + pdf, 400, "oss_name"},
			{"file_id with block_id", e.full, "file_id=" + id + "&block_id=" + pdf + "&oss_name=" + id, 400, "file_id"},
			{"oss_name not an id", e.full, "block_id=" + pdf + "&oss_name=upload%2Fx.pdf", 400, "oss_name"},
			{"block_id not an id", e.full, "block_id=nope&oss_name=" + id, 400, "block_id"},
			{"block without the file", e.full, "block_id=" + text + "&oss_name=" + id, 400, "oss_name"},
			{"block holding another file", e.full, "block_id=" + pdf + "&oss_name=" + icon, 400, "oss_name"},
			{"page without it as icon or cover", e.full, "block_id=" + page + "&oss_name=" + id, 400, "oss_name"},
			{"unknown block", e.full, "block_id=" + quire.NewID() + "&oss_name=" + id, 404, ""},
			{"block out of the token's reach", onlyOther, "block_id=" + pdf + "&oss_name=" + id, 404, ""},
			{"nothing", e.full, "filename=a.pdf", 400, "file_id"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				code := map[int]string{400: "validation_error", 404: "not_found"}[tc.wantStatus]
				e.do(http.MethodGet, "/v2/files/download-url?"+tc.query, tc.token, nil).wantError(t, tc.wantStatus, code, tc.wantPath)
			})
		}
	})
}
