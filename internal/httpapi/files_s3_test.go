package httpapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/filestore/miniotest"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestFiles_S3 runs the upload flow against a real MinIO: the bytes go through Quire's signed
// PUT into the bucket, and every file URL handed out is a presigned bucket URL that MinIO
// checks.
func TestFiles_S3(t *testing.T) {
	if miniotest.Binary() == "" {
		miniotest.Start(t) // skips, or fails under CI
	}
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		s3, err := filestore.NewS3(ctx, miniotest.Start(t))
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, st, envOptions{files: s3})
		page := e.newPage("Bucket")
		data := bytes.Repeat([]byte("s3!"), 3000)

		up := e.announce(e.full, map[string]any{"filename": "data.bin", "content_type": "application/octet-stream", "size": len(data)})
		id := up["id"].(string)
		if !strings.HasPrefix(up["upload_url"].(string), e.srv.URL+"/v2/files/"+id+"/upload?") {
			t.Fatalf("upload_url = %s, want Quire's signed PUT", up["upload_url"])
		}
		fileURL := dig(up, "file", "file", "url").(string)
		if !strings.Contains(fileURL, "X-Amz-Signature=") {
			t.Fatalf("file url = %s, want a presigned bucket URL", fileURL)
		}
		if r := e.put(up["upload_url"].(string), "application/octet-stream", bytes.NewReader(data), int64(len(data))); r.status != 200 {
			t.Fatalf("PUT: %d %s", r.status, r.raw)
		}
		if r := e.fetch(fileURL); r.status != 200 || !bytes.Equal(r.raw, data) {
			t.Fatalf("GET presigned: %d %d bytes", r.status, len(r.raw))
		}

		r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{
			map[string]any{"video": map[string]any{"file_upload": map[string]any{"id": id}}}}})
		if r.status != 200 {
			t.Fatalf("append: %d %s", r.status, r.raw)
		}
		video := dig(r.body["results"].([]any)[0], "video")
		checkServedFile(t, e, video, data)
		// The read shape written back resolves to the upload.
		r = e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{
			map[string]any{"file": map[string]any{"type": "file", "file": dig(video, "file"), "name": "data.bin"}}}})
		if r.status != 200 {
			t.Fatalf("append read shape: %d %s", r.status, r.raw)
		}
		checkServedFile(t, e, dig(r.body["results"].([]any)[0], "file"), data)
		if got := e.fetch(e.downloadURL(e.full, id)); !bytes.Equal(got.raw, data) {
			t.Fatalf("download url: %d", got.status)
		}

		// A body over the announced size leaves no object in the bucket.
		bad := e.announce(e.full, map[string]any{"filename": "x.bin", "content_type": "application/octet-stream", "size": 10})
		e.put(bad["upload_url"].(string), "application/octet-stream", io.MultiReader(strings.NewReader("0123456789"), strings.NewReader("!")), -1).
			wantError(t, 413, "payload_too_large", "")
		if ok, err := s3.Exists(ctx, bad["id"].(string)); err != nil || ok {
			t.Fatalf("object of a refused upload: %v %v", ok, err)
		}
	})
}
