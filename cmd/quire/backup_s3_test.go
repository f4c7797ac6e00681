package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/backup"
	"github.com/quire-dev/quire/internal/filestore/miniotest"
)

// TestBackup_S3ObjectsListed: with files in a bucket, the archive lists each uploaded object
// (bucket, key, size) and copies no bytes; restored onto the other engine, the store's file rows
// still name those objects.
func TestBackup_S3ObjectsListed(t *testing.T) {
	for name, storeFlags := range engines {
		t.Run(name, func(t *testing.T) {
			cfg := miniotest.Start(t)
			t.Setenv("QUIRE_S3_ACCESS_KEY", cfg.AccessKey)
			t.Setenv("QUIRE_S3_SECRET_KEY", cfg.SecretKey)
			sf := storeFlags(t)
			s3 := []string{"--s3-endpoint", cfg.Endpoint, "--s3-bucket", cfg.Bucket, "--s3-region", cfg.Region}
			u := serveAndUpload(t, sf, s3)
			archive := filepath.Join(t.TempDir(), "s3.tar.gz")
			out := mustQuire(t, append(append([]string{"backup", "--out", archive}, sf...), s3...)...)
			if !strings.Contains(out, "1 objects in bucket "+cfg.Bucket+" listed, not copied") {
				t.Errorf("backup's report:\n%s", out)
			}
			m, err := backup.Verify(archive)
			if err != nil {
				t.Fatal(err)
			}
			key := strings.Split(strings.TrimPrefix(u, cfg.Endpoint+"/"+cfg.Bucket+"/"), "?")[0]
			want := []backup.RemoteObject{{Bucket: cfg.Bucket, Key: key, Size: int64(len("hello, file"))}}
			if diff := cmp.Diff(want, m.S3Objects); diff != "" || len(m.Files) != 0 {
				t.Errorf("manifest's objects (-want +got):\n%s\nfiles copied: %v", diff, m.Files)
			}
			other := map[string]string{"sqlite": "postgres", "postgres": "sqlite"}[name]
			mustQuire(t, append([]string{"restore", "--in", archive}, engines[other](t)...)...)
		})
	}
}
