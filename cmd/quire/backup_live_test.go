package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/httpapi"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// liveBase is the base URL every live store's service writes into its answers, so that the
// answers of a store and of its restored copy can be compared byte for byte.
const liveBase = "http://quire.test"

// live is a store served over real HTTP by the real handler, as "quire serve" would serve it.
type live struct {
	st  *store.Store
	svc *service.Service
	ts  *httptest.Server
}

// openLive opens the store that the flags args name (--data and maybe --database-url), with
// the built-in embedding model and the files folder under --data.
func openLive(t *testing.T, args []string) *live {
	t.Helper()
	var sf storeFlags
	fs := newFlags("test", "test", io.Discard)
	sf.add(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	st, err := sf.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	files, err := filestore.NewLocal(filepath.Join(sf.data, "files"))
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(st, service.Options{BaseURL: liveBase, Embedder: embed.Builtin(), Files: files})
	api := httpapi.New(httpapi.Config{Service: svc, Logger: slog.New(slog.DiscardHandler), BaseURL: liveBase})
	l := &live{st: st, svc: svc, ts: httptest.NewServer(api)}
	t.Cleanup(l.close)
	return l
}

func (l *live) close() {
	if l.ts != nil {
		l.ts.Close()
		l.st.Close()
		l.ts = nil
	}
}

// seed fills the store with the demo workspace, embeds everything, and returns its token.
func (l *live) seed(t *testing.T) string {
	t.Helper()
	var out bytes.Buffer
	if err := seedDemo(context.Background(), l.svc, l.ts.Config.Handler, liveBase, &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "--demo:") {
		t.Fatalf("a seed request was refused:\n%s", out.String())
	}
	token := regexp.MustCompile(`quire_[A-Za-z0-9_-]+`).FindString(out.String())
	if token == "" {
		t.Fatalf("no token in the seed's output:\n%s", out.String())
	}
	l.embedAll(t)
	return token
}

// embedAll runs the semantic indexer until the queue is empty.
func (l *live) embedAll(t *testing.T) {
	t.Helper()
	ix := service.NewIndexer(l.svc, slog.New(slog.DiscardHandler))
	for range 100 {
		n, err := ix.RunOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatal("the embedding queue never emptied")
}

// call sends one request, with the header pairs given, and returns the status and decoded body.
func (l *live) call(t *testing.T, method, path, token string, body any, header ...string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, l.ts.URL+strings.TrimPrefix(path, liveBase), rd)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := l.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatalf("%s %s: %d, body not JSON: %v", method, path, res.StatusCode, err)
	}
	return res.StatusCode, m
}

// ok is call that expects 200.
func (l *live) ok(t *testing.T, method, path, token string, body any, header ...string) map[string]any {
	t.Helper()
	code, m := l.call(t, method, path, token, body, header...)
	if code != http.StatusOK {
		t.Fatalf("%s %s: %d %v", method, path, code, m)
	}
	return m
}

// download reads a file's bytes from a download URL of this server.
func (l *live) download(t *testing.T, u string) []byte {
	t.Helper()
	res, err := l.ts.Client().Get(l.ts.URL + strings.TrimPrefix(u, liveBase))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, res.StatusCode, b)
	}
	return b
}
