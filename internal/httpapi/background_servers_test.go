package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// The background loops (webhook deliveries, semantic indexing) wake at once for a commit of
// their own process and otherwise poll, ever more slowly while they find nothing. These tests
// check that what another server writes is still found by the slowed poll.

// twoServers runs fn on each engine with A, a server on a fresh store, and B, a server over a
// second store on the same database (as another machine would open it) with A's workspace and
// tokens; B runs no background loop.
func twoServers(t *testing.T, fn func(t *testing.T, a, b *env)) {
	for name, cfg := range map[string]func(t *testing.T) store.Config{
		"sqlite":   func(t *testing.T) store.Config { return store.Config{Dir: t.TempDir()} },
		"postgres": func(t *testing.T) store.Config { return store.Config{DatabaseURL: testdb.PostgresURL(t)} },
	} {
		t.Run(name, func(t *testing.T) {
			c := cfg(t)
			open := func() *store.Store {
				st, err := store.Open(context.Background(), c)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				return st
			}
			a := newEnv(t, open())
			b := *a
			svc := service.New(open(), service.Options{BaseURL: "http://example.invalid"})
			b.srv = httptest.NewServer(newServer(Config{Service: svc, Logger: slog.New(slog.DiscardHandler), BaseURL: "http://example.invalid"}))
			t.Cleanup(b.srv.Close)
			fn(t, a, &b)
		})
	}
}

// TestWebhooks_OtherServersEvents: events written through B are delivered by A's worker, though
// A's bell never rang for them and its poll slowed to PollMax while nothing was found; a commit
// through A after them is delivered too.
func TestWebhooks_OtherServersEvents(t *testing.T) {
	twoServers(t, func(t *testing.T, a, b *env) {
		r := newReceiver(t, func(int) (int, time.Duration) { return http.StatusOK, 0 })
		a.hook(t, r)
		o := fastWebhooks
		o.PollMax = 400 * time.Millisecond
		startDeliveries(t, a.store, o)
		time.Sleep(time.Second) // nothing to deliver: A's poll grows to PollMax
		b.mkPage(t, b.full, wsParent, "Through B")
		b.mkPage(t, b.full, wsParent, "Through B again")
		checkDelivered(t, r, a.eventIDs(t))
		a.mkPage(t, a.full, wsParent, "Through A")
		checkDelivered(t, r, a.eventIDs(t))
	})
}

// TestSemanticSearch_OtherServersWrites: a page written through B is embedded by A's indexer
// once its idle poll (up to 4 s) comes round, and one written through A after that at once.
func TestSemanticSearch_OtherServersWrites(t *testing.T) {
	twoServers(t, func(t *testing.T, a, b *env) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			service.NewIndexer(a.svc, slog.New(slog.NewTextHandler(io.Discard, nil))).Run(ctx)
			close(done)
		}()
		t.Cleanup(func() { cancel(); <-done })
		time.Sleep(2 * time.Second) // an empty queue: A's poll slows
		for _, w := range []struct {
			via   *env
			title string
		}{{b, "Volcano notes"}, {a, "Glacier notes"}} {
			page := w.via.mkPage(t, w.via.full, wsParent, w.title)
			query := map[string]any{"query": w.title[:len(w.title)-len(" notes")]}
			waitFor(t, w.title+" searchable", func() bool {
				return slices.Contains(a.semanticIDs(t, a.full, query), page)
			})
		}
	})
}
