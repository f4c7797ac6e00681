// Package miniotest starts a throwaway MinIO server for tests, so that the S3 backend is
// tested against a real S3-compatible server that checks every signature. MinIO is a test
// tool only (AGPL): it is never a module of Quire. The binary is the one named by
// QUIRE_TEST_MINIO, else `minio` on PATH (.ci/run installs a pinned version); without one the
// tests that need it skip, unless CI is set: then they fail.
package miniotest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/quire-dev/quire/internal/filestore"
)

// Binary is the MinIO server binary, or "" when there is none.
func Binary() string {
	if p := os.Getenv("QUIRE_TEST_MINIO"); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		return ""
	}
	p, err := exec.LookPath("minio")
	if err != nil {
		return ""
	}
	return p
}

// Start runs a MinIO server on a free loopback port with a data folder of its own and an
// empty bucket, stopped when the test ends, and returns how to reach the bucket.
func Start(t testing.TB) filestore.S3Config {
	t.Helper()
	bin := Binary()
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no MinIO binary (QUIRE_TEST_MINIO or minio on PATH): CI needs it for the S3 tests")
		}
		t.Skip("no MinIO binary (set QUIRE_TEST_MINIO or put minio on PATH); skipping the S3 test")
	}
	addr, console := freeAddr(t), freeAddr(t)
	cfg := filestore.S3Config{Endpoint: "http://" + addr, Bucket: "quire-test", AccessKey: "quire-test-key",
		SecretKey: "quire-test-secret-0123456789", Region: "us-east-1"}
	cmd := exec.Command(bin, "server", t.TempDir(), "--address", addr, "--console-address", console, "--quiet")
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+cfg.AccessKey, "MINIO_ROOT_PASSWORD="+cfg.SecretKey,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_CI_CD=1")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start MinIO: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get("http://" + addr + "/minio/health/live")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("MinIO did not start: %v\n%s", err, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	client, err := minio.New(addr, &minio.Options{Creds: credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""), Region: cfg.Region})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.MakeBucket(context.Background(), cfg.Bucket, minio.MakeBucketOptions{Region: cfg.Region}); err != nil {
		t.Fatalf("make bucket: %v", err)
	}
	return cfg
}

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr())
}
