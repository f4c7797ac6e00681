package filestore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/filestore/miniotest"
)

// backends runs fn on the local backend and, with a MinIO binary at hand, on the S3 one.
func backends(t *testing.T, fn func(t *testing.T, b filestore.Backend, exists func(key string) bool)) {
	t.Run("local", func(t *testing.T) {
		l, err := filestore.NewLocal(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		fn(t, l, func(key string) bool {
			parts, _ := l.Partials()
			return l.Exists(key) || len(parts) > 0
		})
	})
	t.Run("s3", func(t *testing.T) {
		s, err := filestore.NewS3(context.Background(), miniotest.Start(t))
		if err != nil {
			t.Fatal(err)
		}
		fn(t, s, func(key string) bool {
			ok, err := s.Exists(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		})
	})
}

// TestBackend_Put checks that a Put stores exactly the announced bytes, and that a body of
// another size fails with the matching error and leaves nothing behind.
func TestBackend_Put(t *testing.T) {
	backends(t, func(t *testing.T, b filestore.Backend, exists func(string) bool) {
		ctx := context.Background()
		data := bytes.Repeat([]byte("quire"), 4000)
		cases := []struct {
			name    string
			body    io.Reader
			size    int64
			wantErr error
		}{
			{"exact", bytes.NewReader(data), int64(len(data)), nil},
			{"exact, one byte per read", iotest.OneByteReader(bytes.NewReader(data[:500])), 500, nil},
			{"empty", strings.NewReader(""), 0, nil},
			{"one byte too many", bytes.NewReader(data), int64(len(data) - 1), filestore.ErrTooLarge},
			{"much too large", bytes.NewReader(data), 10, filestore.ErrTooLarge},
			{"bytes for an empty file", strings.NewReader("x"), 0, filestore.ErrTooLarge},
			{"too short", bytes.NewReader(data), int64(len(data) + 1), filestore.ErrTooShort},
			{"broken body", iotest.ErrReader(errors.New("connection reset")), 10, nil},
		}
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				key := "0000000" + string(rune('a'+i)) + "-1111-4111-8111-111111111111"
				err := b.Put(ctx, key, tc.body, tc.size, "application/octet-stream")
				if tc.name == "broken body" {
					if err == nil {
						t.Fatal("Put of a broken body succeeded")
					}
				} else if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Put = %v, want %v", err, tc.wantErr)
				}
				if got := exists(key); got != (err == nil) {
					t.Fatalf("stored after Put (err %v) = %v", err, got)
				}
				if err != nil {
					return
				}
				if err := b.Remove(ctx, key); err != nil {
					t.Fatal(err)
				}
				if exists(key) {
					t.Fatal("stored after Remove")
				}
				if err := b.Remove(ctx, key); err != nil {
					t.Fatalf("second Remove = %v, want nil", err)
				}
			})
		}
		for _, key := range []string{"../etc/passwd", "a/b", "", "x", "..", "abc def"} {
			if err := b.Put(ctx, key, strings.NewReader("x"), 1, "text/plain"); err == nil {
				t.Errorf("Put accepted key %q", key)
			}
		}
	})
}

// TestBackend_PutUpTo checks a Put of unknown length: it stores what the body holds up to the
// cap and reports its length; one byte more fails with ErrTooLarge and leaves nothing behind.
func TestBackend_PutUpTo(t *testing.T) {
	backends(t, func(t *testing.T, b filestore.Backend, exists func(string) bool) {
		ctx := context.Background()
		data := bytes.Repeat([]byte("cap"), 3000)
		cases := []struct {
			name    string
			body    io.Reader
			max     int64
			wantN   int64
			wantErr error
		}{
			{"under the cap", bytes.NewReader(data), int64(len(data) + 1), int64(len(data)), nil},
			{"at the cap", iotest.OneByteReader(bytes.NewReader(data[:700])), 700, 700, nil},
			{"empty", strings.NewReader(""), 10, 0, nil},
			{"one byte over", bytes.NewReader(data), int64(len(data) - 1), 0, filestore.ErrTooLarge},
			{"bytes over a zero cap", strings.NewReader("x"), 0, 0, filestore.ErrTooLarge},
		}
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				key := "5555555" + string(rune('a'+i)) + "-1111-4111-8111-111111111111"
				n, err := b.PutUpTo(ctx, key, tc.body, tc.max, "application/octet-stream")
				if !errors.Is(err, tc.wantErr) || n != tc.wantN {
					t.Fatalf("PutUpTo = %d, %v; want %d, %v", n, err, tc.wantN, tc.wantErr)
				}
				if got := exists(key); got != (err == nil) {
					t.Fatalf("stored after PutUpTo (err %v) = %v", err, got)
				}
				if err == nil {
					if err := b.Remove(ctx, key); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	})
}

// TestS3_PresignedGet checks the presigned URL against MinIO's own signature check: it reads
// the object, and an altered or expired one is refused.
func TestS3_PresignedGet(t *testing.T) {
	ctx := context.Background()
	s, err := filestore.NewS3(ctx, miniotest.Start(t))
	if err != nil {
		t.Fatal(err)
	}
	key := "22222222-2222-4222-8222-222222222222"
	if err := s.Put(ctx, key, strings.NewReader("hello"), 5, "text/plain"); err != nil {
		t.Fatal(err)
	}
	u, err := s.PresignGet(ctx, key, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	get := func(u string) (int, string) {
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get(u); code != 200 || body != "hello" {
		t.Fatalf("GET presigned = %d %q", code, body)
	}
	i := strings.Index(u, "X-Amz-Signature=") + len("X-Amz-Signature=")
	flipped := u[:i] + map[bool]string{true: "1", false: "0"}[u[i] == '0'] + u[i+1:]
	if code, _ := get(flipped); code != http.StatusForbidden {
		t.Errorf("GET with an altered signature = %d, want 403", code)
	}
	other := strings.Replace(u, key, "33333333-3333-4333-8333-333333333333", 1)
	if code, _ := get(other); code != http.StatusForbidden {
		t.Errorf("GET of another key with the signature = %d, want 403", code)
	}
	short, err := s.PresignGet(ctx, key, time.Now().Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond)
	if code, _ := get(short); code != http.StatusForbidden {
		t.Errorf("GET after expiry = %d, want 403", code)
	}
}

// TestSigner checks that a signature binds operation, id and expiry.
func TestSigner(t *testing.T) {
	s := filestore.NewSigner([]byte("secret"))
	now := time.Unix(1_800_000_000, 0)
	exp := now.Unix() + 60
	sig := s.Sign(filestore.OpUpload, "id-1", exp)
	cases := []struct {
		name                 string
		op, id, expires, sig string
		at                   time.Time
		want                 int
	}{
		{"valid", filestore.OpUpload, "id-1", "1800000060", sig, now, filestore.Valid},
		{"last second", filestore.OpUpload, "id-1", "1800000060", sig, time.Unix(exp, 0), filestore.Valid},
		{"expired", filestore.OpUpload, "id-1", "1800000060", sig, time.Unix(exp+1, 0), filestore.Expired},
		{"other operation", filestore.OpDownload, "id-1", "1800000060", sig, now, filestore.Tampered},
		{"other id", filestore.OpUpload, "id-2", "1800000060", sig, now, filestore.Tampered},
		{"later expiry", filestore.OpUpload, "id-1", "1800000061", sig, now, filestore.Tampered},
		{"expiry with a sign", filestore.OpUpload, "id-1", "+1800000060", sig, now, filestore.Tampered},
		{"expiry not a number", filestore.OpUpload, "id-1", "soon", sig, now, filestore.Tampered},
		{"empty signature", filestore.OpUpload, "id-1", "1800000060", "", now, filestore.Tampered},
		{"other key", filestore.OpUpload, "id-1", "1800000060", filestore.NewSigner([]byte("other")).Sign(filestore.OpUpload, "id-1", exp), now, filestore.Tampered},
	}
	for _, tc := range cases {
		if got := s.Verify(tc.op, tc.id, tc.expires, tc.sig, tc.at); got != tc.want {
			t.Errorf("%s: Verify = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestS3_RegionAsked checks that a bucket whose region is left out is still reached and
// presigned for, the region asked of the server once.
func TestS3_RegionAsked(t *testing.T) {
	cfg := miniotest.Start(t)
	cfg.Region = ""
	s, err := filestore.NewS3(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	key := "44444444-4444-4444-8444-444444444444"
	if err := s.Put(context.Background(), key, strings.NewReader("hi"), 2, "text/plain"); err != nil {
		t.Fatal(err)
	}
	u, err := s.PresignGet(context.Background(), key, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(b) != "hi" {
		t.Fatalf("GET presigned: %d %q", res.StatusCode, b)
	}
}
