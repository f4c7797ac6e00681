package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/busy"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// heldRoutes adds GET /v2/test/hold to a test server: it reports on entered that it is running,
// and answers when it receives from release (one send frees one).
func heldRoutes(g *busy.Gate, entered chan<- string, release <-chan struct{}) func(*Server) {
	return func(s *Server) {
		s.cfg.Busy = g
		s.mux.HandleFunc("GET /v2/test/hold", func(w http.ResponseWriter, r *http.Request) {
			entered <- r.URL.Path
			<-release
		})
	}
}

// hold sends GET path and waits until its handler runs; the answer arrives on the channel.
func hold(t *testing.T, e *env, path string, entered <-chan string) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		res, err := e.srv.Client().Get(e.srv.URL + path)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatalf("GET %s never reached its handler", path)
	}
	return done
}

func TestBusy_CountsRequestsButNotStreams(t *testing.T) {
	g := busy.New()
	entered, release := make(chan string, 2), make(chan struct{})
	e := newEnv(t, testdb.SQLite(t), envOptions{extra: []func(*Server){heldRoutes(g, entered, release)}})
	defer close(release)                 // frees what a failed check left held
	openStream(t, e.srv.URL, e.full, "") // the events stream, open until the test ends
	if n := g.InFlight(); n != 0 {
		t.Fatalf("an open event stream counts %d requests in flight, want 0", n)
	}
	req := hold(t, e, "/v2/test/hold", entered)
	if n := g.InFlight(); n != 1 {
		t.Fatalf("a request held open counts %d in flight, want 1", n)
	}
	release <- struct{}{}
	if err := <-req; err != nil {
		t.Fatal(err)
	}
	// The count drops once the answer is written; the client may see it a moment before.
	for deadline := time.Now().Add(5 * time.Second); g.InFlight() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after the answer %d requests in flight", g.InFlight())
		}
	}
}

// TestBusy_IndexerWaitsForRequests: a queued page is not embedded while a request is in flight,
// and is embedded as soon as it ends, or after the indexer's longest wait.
func TestBusy_IndexerWaitsForRequests(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		g := busy.New()
		entered := make(chan string, 2)
		release := make(chan struct{})
		e := newEnv(t, st, envOptions{extra: []func(*Server){heldRoutes(g, entered, release)}})
		defer close(release)
		e.appendKids(t, e.mkPage(t, e.full, wsParent, "Pets"), para("Cats purr on the sofa."))
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		runOnce := func(ix *service.Indexer) <-chan int {
			out := make(chan int, 1)
			go func() {
				n, err := ix.RunOnce(context.Background())
				if err != nil {
					t.Error(err)
				}
				out <- n
			}()
			return out
		}

		// Held: the indexer claims the page but does not embed it until the request ends.
		done := hold(t, e, "/v2/test/hold", entered)
		ran := runOnce(service.NewIndexer(e.svc, log).Yield(g, time.Minute))
		select {
		case n := <-ran:
			t.Fatalf("the indexer embedded %d nodes while a request was in flight", n)
		case <-time.After(300 * time.Millisecond):
		}
		if got := e.svc.IndexStats().Nodes; got != 0 {
			t.Fatalf("%d nodes embedded while a request was in flight", got)
		}
		release <- struct{}{}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-ran:
			if n != 1 || e.svc.IndexStats().Nodes != 1 {
				t.Fatalf("after the request: RunOnce took %d, %d embedded; want 1, 1", n, e.svc.IndexStats().Nodes)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the indexer still waits after the request ended")
		}

		// Never starved: with a request held open throughout, the indexer goes on after maxWait.
		e.appendKids(t, e.mkPage(t, e.full, wsParent, "Garden"), para("Tomatoes need sun."))
		hold(t, e, "/v2/test/hold", entered)
		start := time.Now()
		select {
		case n := <-runOnce(service.NewIndexer(e.svc, log).Yield(g, 200*time.Millisecond)):
			if n != 1 || g.InFlight() != 1 {
				t.Fatalf("RunOnce took %d with %d requests in flight; want 1 with 1", n, g.InFlight())
			}
			if d := time.Since(start); d < 200*time.Millisecond {
				t.Fatalf("the indexer waited %v with a request in flight, want at least 200ms", d)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the indexer starves while a request is held open")
		}
	})
}

// arriving is the test embedder, with a request arriving on gate during its first call: the
// request is in flight when the indexer comes to save what was embedded. Its end is sent on end.
type arriving struct {
	wordHashEmbedder
	gate *busy.Gate
	end  chan func()
	once *sync.Once
}

func (a arriving) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	a.once.Do(func() { a.end <- a.gate.Begin() })
	return a.wordHashEmbedder.Embed(ctx, texts)
}

// TestBusy_IndexerSavesBetweenRequests: the indexer's writes wait for requests in flight too,
// not only its embedding (on PostgreSQL a save takes a backend's CPU and a WAL flush, beside
// the requests' statements): vectors embedded while a request arrived are saved once it ends.
func TestBusy_IndexerSavesBetweenRequests(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		g := busy.New()
		emb := arriving{wordHashEmbedder{model: "word-hash-64"}, g, make(chan func(), 1), &sync.Once{}}
		e := newEnv(t, st, envOptions{embedder: emb})
		e.appendKids(t, e.mkPage(t, e.full, wsParent, "Pets"), para("Cats purr on the sofa."))
		ix := service.NewIndexer(e.svc, slog.New(slog.NewTextHandler(io.Discard, nil))).Yield(g, time.Minute)
		ran := make(chan error, 1)
		go func() {
			_, err := ix.RunOnce(context.Background())
			ran <- err
		}()
		var end func()
		select {
		case end = <-emb.end:
		case <-time.After(10 * time.Second):
			t.Fatal("the indexer never embedded the page")
		}
		select {
		case err := <-ran:
			end()
			t.Fatalf("the indexer saved while a request was in flight (%v)", err)
		case <-time.After(300 * time.Millisecond):
		}
		if n, err := st.EmbedQueueLength(context.Background()); err != nil || n != 1 || e.svc.IndexStats().Nodes != 0 {
			t.Fatalf("while the request is in flight: queue %d (%v), %d saved; want 1 and 0", n, err, e.svc.IndexStats().Nodes)
		}
		end()
		select {
		case err := <-ran:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the indexer still waits after the request ended")
		}
		if n, err := st.EmbedQueueLength(context.Background()); err != nil || n != 0 || e.svc.IndexStats().Nodes != 1 {
			t.Fatalf("after the request: queue %d (%v), %d saved; want 0 and 1", n, err, e.svc.IndexStats().Nodes)
		}
	})
}
