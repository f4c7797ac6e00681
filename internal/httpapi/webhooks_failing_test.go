package httpapi

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestWebhooks_FailingThenResumed: a receiver that refuses for the whole retry window turns
// the webhook failing with its backlog kept; PATCH status active resumes with the event that
// failed. A redirect is not followed: it is a refusal like any other.
func TestWebhooks_FailingThenResumed(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		var healthy atomic.Bool
		r := newReceiver(t, func(int) (int, time.Duration) {
			if healthy.Load() {
				return http.StatusAccepted, 0
			}
			return http.StatusFound, 0
		})
		id := e.hook(t, r)
		o := fastWebhooks
		o.RetryFor = 300 * time.Millisecond
		startDeliveries(t, st, o)
		e.mkPage(t, e.full, wsParent, "First")
		e.mkPage(t, e.full, wsParent, "Second")
		waitFor(t, "status failing", func() bool {
			return e.do(http.MethodGet, "/v2/webhooks/"+id, e.full, nil).body["status"] == "failing"
		})
		tries := len(e.deliveries(t, id))
		time.Sleep(200 * time.Millisecond) // a failing webhook is left alone
		if got := len(e.deliveries(t, id)); got != tries {
			t.Fatalf("a failing webhook was tried again: %d attempts, then %d", tries, got)
		}
		for _, d := range e.deliveries(t, id) {
			if d["status_code"] != float64(302) {
				t.Fatalf("attempt answered %v, want the 302 itself (redirects are not followed)", d["status_code"])
			}
		}
		if _, acked, _ := r.snapshot(); len(acked) != 0 {
			t.Fatalf("acknowledged while failing: %v", acked)
		}
		e.mkPage(t, e.full, wsParent, "While failing")
		healthy.Store(true)
		resumed := e.do(http.MethodPatch, "/v2/webhooks/"+id, e.full, map[string]any{"status": "active"})
		wantOK(t, resumed, 200)
		if resumed.body["status"] != "active" {
			t.Fatalf("PATCH status active answered %s", resumed.raw)
		}
		checkDelivered(t, r, e.eventIDs(t))
	})
}

// TestWebhooks_EventTypes: a webhook of some types receives only those, in order.
func TestWebhooks_EventTypes(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		r := newReceiver(t, func(int) (int, time.Duration) { return http.StatusOK, 0 })
		created := e.mkWebhook(t, r.srv.URL, "page.moved")
		r.secret = created["secret"].(string)
		startDeliveries(t, st, fastWebhooks)
		a := e.mkPage(t, e.full, wsParent, "A")
		b := e.mkPage(t, e.full, wsParent, "B")
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+b+"/move", e.full, map[string]any{"parent": pageParent(a)}), 200)
		moves, _ := e.feed(t, e.full, "", "types=page.moved", 100)
		if len(moves) != 1 {
			t.Fatalf("feed has %d moves", len(moves))
		}
		checkDelivered(t, r, []string{moves[0]["id"].(string)})
		e.mkPage(t, e.full, wsParent, "C")
		time.Sleep(200 * time.Millisecond)
		if attempts, _, _ := r.snapshot(); len(attempts) != 1 {
			t.Fatalf("received %d events, want only the move", len(attempts))
		}
	})
}

// TestWebhooks_Restart: a backlog left by a server that stopped is delivered by a server
// started later on the same store, reopened (the SQLite file, the PostgreSQL database).
func TestWebhooks_Restart(t *testing.T) {
	for name, cfg := range map[string]func(t *testing.T) store.Config{
		"sqlite":   func(t *testing.T) store.Config { return store.Config{Dir: t.TempDir()} },
		"postgres": func(t *testing.T) store.Config { return store.Config{DatabaseURL: testdb.PostgresURL(t)} },
	} {
		t.Run(name, func(t *testing.T) {
			c := cfg(t)
			st, err := store.Open(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, st)
			var up atomic.Bool
			r := newReceiver(t, func(int) (int, time.Duration) {
				if up.Load() {
					return http.StatusOK, 0
				}
				return http.StatusServiceUnavailable, 0
			})
			id := e.hook(t, r)
			stop := startDeliveries(t, st, fastWebhooks)
			for range 3 {
				e.mkPage(t, e.full, wsParent, "Before the restart")
			}
			want := e.eventIDs(t)
			waitFor(t, "a refused attempt", func() bool { return len(e.deliveries(t, id)) >= 1 })
			stop()
			e.srv.Close()
			st.Close()

			st2, err := store.Open(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st2.Close() })
			up.Store(true)
			startDeliveries(t, st2, fastWebhooks)
			checkDelivered(t, r, want)
		})
	}
}
