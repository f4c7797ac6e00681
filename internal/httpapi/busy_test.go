package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
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
