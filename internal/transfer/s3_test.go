package transfer_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/filestore/miniotest"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/testdb"
	"github.com/quire-dev/quire/internal/transfer"
)

// TestTransfer_S3Files exports a page whose picture lives in an S3 bucket (read through a
// presigned URL), imports it into a store that keeps files in a folder, and exports that: the
// same bytes, picture included.
func TestTransfer_S3Files(t *testing.T) {
	bucket, err := filestore.NewS3(ctx, miniotest.Start(t))
	if err != nil {
		t.Fatal(err)
	}
	svc, p := workspaceOn(t, testdb.SQLite(t), bucket)
	pic := pngBytes(t)
	f, err := svc.RestoreFile(ctx, p, quire.File{Name: "pic.png", ContentType: "image/png", Size: int64(len(pic))}, bytes.NewReader(pic))
	if err != nil {
		t.Fatal(err)
	}
	create(t, svc, p, `{"parent": {"workspace": true}, "properties": {"title": [{"text": {"content": "Gallery"}}]},
		"children": [{"image": {"type": "file_upload", "file_upload": {"id": "`+f.ID+`"}}}]}`)
	first := filepath.Join(t.TempDir(), "first")
	export(t, svc, p, first)
	got, err := os.ReadFile(filepath.Join(first, "files", f.ID, "pic.png"))
	if err != nil || !bytes.Equal(got, pic) {
		t.Fatalf("exported picture: %d bytes, %v", len(got), err)
	}

	svc2, p2 := workspace(t, testdb.SQLite(t))
	src, err := transfer.OpenSource(first)
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := transfer.Import(ctx, svc2, p2, src, transfer.Options{}); err != nil || sum.Files != 1 || sum.Pages != 1 {
		t.Fatalf("Import = %+v, %v", sum, err)
	}
	second := filepath.Join(t.TempDir(), "second")
	export(t, svc2, p2, second)
	a, b := files(t, first), files(t, second)
	for name, want := range a {
		if b[name] != want {
			t.Errorf("%s differs", name)
		}
	}
	if len(a) != len(b) {
		t.Errorf("%d files, then %d", len(a), len(b))
	}
}
