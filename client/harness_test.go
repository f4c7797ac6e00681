package client_test

import (
	"context"
	"io"
	"log/slog"
	"math"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quire-dev/quire/client"
	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/httpapi"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// server is a real Quire server over a real store, reached through real HTTP.
type server struct {
	url   string
	svc   *service.Service
	ws    *quire.Workspace
	owner *quire.User
	token string // workspace-scoped, every scope
	ts    *httptest.Server
}

// newServer starts a server on st with one workspace, its owner and a full token;
// rateLimit > 0 turns on --rate-limit.
func newServer(t *testing.T, st *store.Store, rateLimit float64) *server {
	t.Helper()
	files, err := filestore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	svc := service.New(st, service.Options{BaseURL: base, Embedder: letterEmbedder{}, Files: files})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ts.Config.Handler = httpapi.New(httpapi.Config{Service: svc, Logger: logger, BaseURL: base, RateLimit: rateLimit})
	ts.Start()
	t.Cleanup(ts.Close)

	ctx := context.Background()
	s := &server{url: ts.URL, svc: svc, ts: ts}
	if s.ws, err = svc.CreateWorkspace(ctx, "Acme"); err != nil {
		t.Fatal(err)
	}
	if s.owner, err = svc.CreateUser(ctx, s.ws.ID, "Ada Lovelace", "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	if s.token, _, err = svc.CreateToken(ctx, service.TokenSpec{WorkspaceID: s.ws.ID, OwnerID: s.owner.ID,
		Name: "client test", Scopes: quire.AllScopes, WorkspaceScoped: true}); err != nil {
		t.Fatal(err)
	}
	return s
}

// client is a client of s with quick retries, so that tests do not sleep for long.
func (s *server) client(opts ...client.Option) *client.Client {
	return client.New(s.url, s.token, append([]client.Option{client.WithBackoff(10*time.Millisecond, 3*time.Second)}, opts...)...)
}

// index runs the semantic indexer until its queue is empty.
func (s *server) index(t *testing.T) {
	t.Helper()
	ix := service.NewIndexer(s.svc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for range 1000 {
		n, err := ix.RunOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatal("the embedding queue does not drain")
}

// letterEmbedder stands in for the language model (an outside dependency, slow to load):
// a text's vector counts its letters, so texts sharing words are close.
type letterEmbedder struct{}

func (letterEmbedder) ID() string { return "letters-26" }
func (letterEmbedder) Dim() int   { return 26 }
func (letterEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 26)
		var n float64
		for _, r := range strings.ToLower(t) {
			if r >= 'a' && r <= 'z' {
				v[r-'a']++
				n += float64(2*v[r-'a'] - 1) // the growth of the squared norm
			}
		}
		for j := range v { // unit length, as real models answer
			if n > 0 {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

// must(f())(t) returns f's value, failing the test when f failed. (The test comes last
// because Go passes a call's several results only as a call's whole argument list.)
func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// collect drains an iterator, failing the test on its error.
func collect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var all []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, v)
	}
	return all
}
