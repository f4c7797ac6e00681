package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/filestore/miniotest"
)

// TestServe_Files uploads and reads back a file through `quire serve` on each engine, with
// files in DATA/files and, when a MinIO binary is at hand, in a bucket named by the flags.
func TestServe_Files(t *testing.T) {
	for name, storeFlags := range engines {
		t.Run(name, func(t *testing.T) {
			data := t.TempDir()
			sf := append(storeFlags(t), "--data", data)
			if name == "sqlite" {
				sf = []string{"--data", data}
			}
			t.Run("local", func(t *testing.T) {
				u := serveAndUpload(t, sf, nil)
				if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.Contains(u, "/content?") {
					t.Fatalf("file url %s, want Quire's signed GET", u)
				}
				matches, _ := filepath.Glob(filepath.Join(data, "files", "*", "*"))
				if len(matches) != 1 || !strings.HasSuffix(u[:strings.Index(u, "/content?")], filepath.Base(matches[0])) {
					t.Fatalf("DATA/files holds %v, want the one file of %s", matches, u)
				}
			})
			t.Run("s3", func(t *testing.T) {
				cfg := miniotest.Start(t)
				t.Setenv("QUIRE_S3_ACCESS_KEY", cfg.AccessKey)
				t.Setenv("QUIRE_S3_SECRET_KEY", cfg.SecretKey)
				u := serveAndUpload(t, sf, []string{"--s3-endpoint", cfg.Endpoint, "--s3-bucket", cfg.Bucket, "--s3-region", cfg.Region})
				if !strings.HasPrefix(u, cfg.Endpoint+"/"+cfg.Bucket+"/") || !strings.Contains(u, "X-Amz-Signature=") {
					t.Fatalf("file url %s, want a presigned bucket URL", u)
				}
			})
		})
	}
}

// serveAndUpload starts serve with the store flags sf and the file flags ff, uploads a file as a new token and returns the URL
// the file reads back with, after checking that it serves the bytes.
func serveAndUpload(t *testing.T, sf, ff []string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn"}, append(sf, ff...)...), stdout, io.Discard)
	}()
	t.Cleanup(func() { cancel(); <-done })
	base := waitForURL(t, stdout, done)
	ws := runJSON(t, append([]string{"workspace", "create", "--name", "Acme"}, sf...)...)
	user := runJSON(t, append([]string{"user", "create", "--workspace", ws["id"].(string), "--name", "Ada", "--email", "ada@example.com"}, sf...)...)
	tok := runJSON(t, append([]string{"token", "create", "--workspace", ws["id"].(string), "--owner", user["id"].(string),
		"--name", "ci", "--scopes", "all", "--workspace-scoped"}, sf...)...)

	send := func(method, u, token, contentType string, body []byte) map[string]any {
		req, _ := http.NewRequest(method, u, bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 {
			t.Fatalf("%s %s: %d %v %v", method, u, res.StatusCode, out, err)
		}
		return out
	}
	content := []byte("hello, file")
	up := send("POST", base+"/v2/files/upload-url", tok["token"].(string), "application/json",
		[]byte(`{"filename":"hello.txt","content_type":"text/plain","size":11}`))
	send("PUT", up["upload_url"].(string), "", "text/plain", content)
	u := up["file"].(map[string]any)["file"].(map[string]any)["url"].(string)
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(got, content) {
		t.Fatalf("GET %s: %d %q", u, res.StatusCode, got)
	}
	return u
}

// TestServe_S3FlagErrors checks that serve refuses to start on a bucket it cannot use, saying why.
func TestServe_S3FlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		creds bool
		want  string
	}{
		{"no credentials", []string{"--s3-endpoint", "http://127.0.0.1:9", "--s3-bucket", "b"}, false, "AWS_ACCESS_KEY_ID"},
		{"no bucket", []string{"--s3-endpoint", "http://127.0.0.1:9"}, true, "bucket"},
		{"endpoint with a path", []string{"--s3-endpoint", "http://127.0.0.1:9/b", "--s3-bucket", "b"}, true, "without a path"},
		{"unreachable", []string{"--s3-endpoint", "http://127.0.0.1:9", "--s3-bucket", "b", "--s3-region", "us-east-1"}, true, "S3 bucket b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "QUIRE_S3_ACCESS_KEY", "QUIRE_S3_SECRET_KEY"} {
				t.Setenv(k, "")
				os.Unsetenv(k)
			}
			if tc.creds {
				t.Setenv("AWS_ACCESS_KEY_ID", "key")
				t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
			}
			args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, tc.args...)
			err := run(context.Background(), args, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("serve = %v, want an error about %q", err, tc.want)
			}
		})
	}
}
