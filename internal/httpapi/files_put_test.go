package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestFiles_BadUploads checks that a PUT with a tampered, expired or reused signature, a body
// of the wrong size or the wrong content type is refused with the contract's error and
// leaves no bytes behind.
func TestFiles_BadUploads(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		files := localFiles(t)
		e := newEnv(t, st, envOptions{files: files})
		data := bytes.Repeat([]byte("0123456789"), 1000) // 10,000 bytes
		fresh := func() (id, uploadURL string) {
			up := e.announce(e.full, map[string]any{"filename": "notes.txt", "content_type": "text/plain; charset=utf-8", "size": len(data)})
			return up["id"].(string), up["upload_url"].(string)
		}
		with := func(u string, set func(q url.Values)) string {
			p, _ := url.Parse(u)
			q := p.Query()
			set(q)
			p.RawQuery = q.Encode()
			return p.String()
		}
		type put struct {
			url, contentType string
			body             io.Reader
			length           int64
		}
		cases := []struct {
			name       string
			req        func(id, u string) put
			wantStatus int
			wantCode   string
			wantState  string // the upload's status afterwards
		}{
			{"tampered signature", func(id, u string) put {
				return put{with(u, func(q url.Values) { q.Set("signature", strings.Repeat("A", 43)) }), "text/plain", bytes.NewReader(data), int64(len(data))}
			}, 403, "forbidden", quire.FilePending},
			{"expiry moved", func(id, u string) put {
				return put{with(u, func(q url.Values) { q.Set("expires", "9999999999") }), "text/plain", bytes.NewReader(data), int64(len(data))}
			}, 403, "forbidden", quire.FilePending},
			{"signature missing", func(id, u string) put {
				return put{with(u, func(q url.Values) { q.Del("signature") }), "text/plain", bytes.NewReader(data), int64(len(data))}
			}, 403, "forbidden", quire.FilePending},
			{"another file's signature", func(id, u string) put {
				_, other := fresh()
				query := other[strings.Index(other, "?"):]
				return put{e.srv.URL + "/v2/files/" + id + "/upload" + query, "text/plain", bytes.NewReader(data), int64(len(data))}
			}, 403, "forbidden", quire.FilePending},
			{"expired", func(id, u string) put {
				return put{e.svc.UploadURL(&quire.File{ID: id, ExpiresMs: time.Now().Add(-time.Minute).UnixMilli()}), "text/plain", bytes.NewReader(data), int64(len(data))}
			}, 403, "forbidden", quire.FilePending},
			{"wrong content type", func(id, u string) put {
				return put{u, "application/zip", bytes.NewReader(data), int64(len(data))}
			}, 415, "unsupported_media_type", quire.FilePending},
			{"no content type", func(id, u string) put {
				return put{u, "", bytes.NewReader(data), int64(len(data))}
			}, 415, "unsupported_media_type", quire.FilePending},
			{"Content-Length over the size", func(id, u string) put {
				big := append(append([]byte{}, data...), 'x')
				return put{u, "text/plain", bytes.NewReader(big), int64(len(big))}
			}, 413, "payload_too_large", quire.FilePending},
			{"Content-Length under the size", func(id, u string) put {
				return put{u, "text/plain", bytes.NewReader(data[1:]), int64(len(data) - 1)}
			}, 400, "validation_error", quire.FilePending},
			{"chunked body over the size", func(id, u string) put {
				return put{u, "text/plain", io.MultiReader(bytes.NewReader(data), strings.NewReader("and more")), -1}
			}, 413, "payload_too_large", quire.FileFailed},
			{"chunked body under the size", func(id, u string) put {
				return put{u, "text/plain", bytes.NewReader(data[:5000]), -1}
			}, 400, "validation_error", quire.FileFailed},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				id, u := fresh()
				p := tc.req(id, u)
				r := e.put(p.url, p.contentType, p.body, p.length)
				r.wantError(t, tc.wantStatus, tc.wantCode, "")
				f, err := st.FileByID(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				if f.Status != tc.wantState {
					t.Errorf("status after the refusal = %s, want %s", f.Status, tc.wantState)
				}
				if files.Exists(id) {
					t.Errorf("a refused upload left its file behind")
				}
				if parts, _ := files.Partials(); len(parts) != 0 {
					t.Errorf("a refused upload left partial bytes: %v", parts)
				}
				if tc.wantState == quire.FilePending {
					// Nothing was read: the URL still works once.
					if r := e.put(u, "text/plain", bytes.NewReader(data), int64(len(data))); r.status != 200 {
						t.Fatalf("PUT after the refusal: %d %s", r.status, r.raw)
					}
				}
			})
		}

		t.Run("reused", func(t *testing.T) {
			id, u := fresh()
			if r := e.put(u, "text/plain", bytes.NewReader(data), int64(len(data))); r.status != 200 {
				t.Fatalf("first PUT: %d %s", r.status, r.raw)
			}
			r := e.put(u, "text/plain", strings.NewReader(strings.Repeat("y", len(data))), int64(len(data)))
			r.wantError(t, 409, "conflict", "")
			got := e.fetch(e.downloadURL(e.full, id))
			if !bytes.Equal(got.raw, data) {
				t.Fatalf("the second PUT changed the file")
			}
		})

		t.Run("tampered download", func(t *testing.T) {
			id, u := fresh()
			e.put(u, "text/plain", bytes.NewReader(data), int64(len(data)))
			d := e.downloadURL(e.full, id)
			for _, bad := range []string{
				strings.Replace(d, "signature=", "signature=x", 1),
				strings.Replace(d, "expires=", "expires=1", 1),
				e.srv.URL + "/v2/files/" + id + "/content",
			} {
				e.fetch(bad).wantError(t, 403, "forbidden", "")
			}
			e.fetch(strings.Replace(d, id, quire.NewID(), 1)).wantError(t, 403, "forbidden", "")
			// Path tricks in the id never reach the file system.
			query := d[strings.Index(d, "?"):]
			for _, trick := range []string{"..%2F..%2Fquire.db", "..%2Fpartial%2F" + id + ".part", id + "%2F..%2F" + id, "%2Fetc%2Fpasswd"} {
				e.fetch(e.srv.URL+"/v2/files/"+trick+"/content"+query).wantError(t, 404, "not_found", "")
				e.put(e.srv.URL+"/v2/files/"+trick+"/upload"+query, "text/plain", strings.NewReader("x"), 1).wantError(t, 404, "not_found", "")
			}
		})
	})
}

// downloadURL asks for a download URL of file id.
func (e *env) downloadURL(token, id string) string {
	e.t.Helper()
	r := e.do(http.MethodGet, "/v2/files/download-url?file_id="+id, token, nil)
	if r.status != 200 {
		e.t.Fatalf("download-url: %d %s", r.status, r.raw)
	}
	return r.body["url"].(string)
}

// TestFiles_Sweep checks that uploads never completed are expired, with their partial bytes
// removed, and that their URL no longer works.
func TestFiles_Sweep(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		files := localFiles(t)
		e := newEnv(t, st, envOptions{files: files})
		ctx := context.Background()
		announce := func() (string, string) {
			up := e.announce(e.full, map[string]any{"filename": "a.bin", "content_type": "application/octet-stream", "size": 4})
			return up["id"].(string), up["upload_url"].(string)
		}
		pending, pendingURL := announce()
		stuck, _ := announce()
		done, doneURL := announce()
		if r := e.put(doneURL, "application/octet-stream", strings.NewReader("abcd"), 4); r.status != 200 {
			t.Fatalf("PUT: %d %s", r.status, r.raw)
		}
		// A PUT that a stopped server left halfway: claimed, with partial bytes on disk.
		if ok, err := st.ClaimUpload(ctx, stuck, quire.NowMillis()); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		part := filepath.Join(files.Dir(), "partial", stuck+".part")
		if err := os.WriteFile(part, []byte("ab"), 0o600); err != nil {
			t.Fatal(err)
		}

		// Before expiry nothing is swept.
		if n, err := e.svc.SweepUploads(ctx, time.Now()); err != nil || n != 0 {
			t.Fatalf("early sweep = %d, %v", n, err)
		}
		n, err := e.svc.SweepUploads(ctx, time.Now().Add(3*time.Hour))
		if err != nil || n != 2 {
			t.Fatalf("sweep = %d, %v; want 2", n, err)
		}
		for id, want := range map[string]string{pending: quire.FileExpired, stuck: quire.FileExpired, done: quire.FileUploaded} {
			f, err := st.FileByID(ctx, id)
			if err != nil || f.Status != want {
				t.Errorf("status of %s = %v (%v), want %s", id, f, err, want)
			}
		}
		if _, err := os.Stat(part); !os.IsNotExist(err) {
			t.Errorf("partial bytes left: %v", err)
		}
		if !files.Exists(done) {
			t.Errorf("the sweep removed a complete upload")
		}
		e.put(pendingURL, "application/octet-stream", strings.NewReader("abcd"), 4).wantError(t, 409, "conflict", "")
	})
}

// TestFiles_ConcurrentPUT sends one upload URL eight times at once: exactly one PUT stores
// its bytes, every other is refused, and the file holds the winner's bytes whole.
func TestFiles_ConcurrentPUT(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		files := localFiles(t)
		e := newEnv(t, st, envOptions{files: files})
		const n, size = 8, 64 << 10
		up := e.announce(e.full, map[string]any{"filename": "race.bin", "content_type": "application/octet-stream", "size": size})
		statuses := make(chan int, n)
		var start sync.WaitGroup
		start.Add(1)
		for i := range n {
			go func() {
				start.Wait()
				body := bytes.Repeat([]byte{byte('a' + i)}, size)
				req, _ := http.NewRequest(http.MethodPut, up["upload_url"].(string), bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/octet-stream")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					statuses <- 0
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				statuses <- res.StatusCode
			}()
		}
		start.Done()
		count := map[int]int{}
		for range n {
			count[<-statuses]++
		}
		if count[200] != 1 || count[409] != n-1 {
			t.Fatalf("statuses %v, want one 200 and %d 409", count, n-1)
		}
		got := e.fetch(e.downloadURL(e.full, up["id"].(string)))
		if len(got.raw) != size || !bytes.Equal(got.raw, bytes.Repeat(got.raw[:1], size)) {
			t.Fatalf("the file mixes bodies or is not whole: %d bytes", len(got.raw))
		}
	})
}

// TestFiles_BrokenUpload drops the connection half way through a PUT: the upload is failed,
// its partial bytes are gone, and the server did not answer 500.
func TestFiles_BrokenUpload(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		files := localFiles(t)
		var logs strings.Builder
		var mu sync.Mutex
		e := newEnv(t, st, envOptions{files: files, extra: []func(*Server){func(s *Server) {
			s.log = slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil))
		}}})
		const size = 1 << 20
		up := e.announce(e.full, map[string]any{"filename": "big.bin", "content_type": "application/octet-stream", "size": size})
		pr, pw := io.Pipe()
		go func() {
			pw.Write(bytes.Repeat([]byte("x"), size/2))
			time.Sleep(50 * time.Millisecond) // let the server store what it got so far
			pw.CloseWithError(errors.New("network gone"))
		}()
		req, _ := http.NewRequest(http.MethodPut, up["upload_url"].(string), pr)
		req.ContentLength = size
		req.Header.Set("Content-Type", "application/octet-stream")
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			t.Fatalf("the client's PUT did not fail but answered %d", res.StatusCode)
		}
		id := up["id"].(string)
		deadline := time.Now().Add(5 * time.Second)
		for {
			f, err := st.FileByID(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if f.Status == quire.FileFailed {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("status = %s, want failed", f.Status)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if parts, _ := files.Partials(); len(parts) != 0 || files.Exists(id) {
			t.Fatalf("bytes left behind: partial %v, file %v", parts, files.Exists(id))
		}
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(logs.String(), "status=500") || strings.Contains(logs.String(), "internal error") {
			t.Fatalf("a dropped upload was logged as a server error:\n%s", logs.String())
		}
	})
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
