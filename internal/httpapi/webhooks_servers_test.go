package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestWebhooks_OtherServersEvents: events written through a server that runs no delivery
// worker (a second store on the same database, as another machine would open it) are
// delivered by this server's worker, though its bell never rang for them and its poll has
// slowed to PollMax while nothing was found; and a commit through this server after them is
// delivered too (the bell).
func TestWebhooks_OtherServersEvents(t *testing.T) {
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
			r := newReceiver(t, func(int) (int, time.Duration) { return http.StatusOK, 0 })
			a.hook(t, r)
			o := fastWebhooks
			o.PollMax = 400 * time.Millisecond
			startDeliveries(t, a.store, o)

			// B: the same workspace and tokens, served over a store of its own.
			b := *a
			b.srv = httptest.NewServer(newServer(Config{Service: service.New(open(), service.Options{BaseURL: "http://example.invalid"}),
				Logger: slog.New(slog.DiscardHandler), BaseURL: "http://example.invalid"}))
			t.Cleanup(b.srv.Close)

			time.Sleep(time.Second) // nothing to deliver: A's poll grows to PollMax
			b.mkPage(t, b.full, wsParent, "Through B")
			b.mkPage(t, b.full, wsParent, "Through B again")
			checkDelivered(t, r, a.eventIDs(t))

			a.mkPage(t, a.full, wsParent, "Through A")
			checkDelivered(t, r, a.eventIDs(t))
		})
	}
}
