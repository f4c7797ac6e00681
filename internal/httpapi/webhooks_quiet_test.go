package httpapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
)

// webhookDueRead is a word of the delivery watch's one read (store.WebhookDue).
const webhookDueRead = "EXISTS (SELECT 1 FROM webhooks WHERE status = 'active')"

// TestWebhooks_NoneActiveAsksByPoll: while no webhook is active, the delivery watch does not
// read after each commit of this process but once per Poll at most; a webhook made through
// this process is delivered the next event at once all the same (the store rings), and one made
// by another server sharing the database (a second store) is found by the poll and delivered
// this server's events. Both engines. Fails if the watch reads after every commit, if
// CreateWebhook does not ring, or if a server waits for its own webhook longer than the poll.
func TestWebhooks_NoneActiveAsksByPoll(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			rec := &statements{}
			cfg := engineConfig(t, engine)
			cfg.Observe = rec.observe
			st := openStore(t, cfg)
			e := newEnv(t, st)
			o := fastWebhooks
			o.Poll, o.PollMax = 400*time.Millisecond, 4*time.Second
			startDeliveries(t, st, o)
			time.Sleep(100 * time.Millisecond) // the watch's first read

			const writes = 20
			var took time.Duration
			seen := rec.during(func() {
				start := time.Now()
				for i := range writes {
					e.mkPage(t, e.full, wsParent, "Quiet "+string(rune('a'+i)))
				}
				took = time.Since(start)
				time.Sleep(50 * time.Millisecond) // a read the last commit set off
			})
			reads := 0
			for _, q := range seen {
				if strings.Contains(q, webhookDueRead) {
					reads++
				}
			}
			if most := int(took/o.Poll) + 2; reads > most || reads >= writes {
				t.Errorf("%d reads of the due webhooks during %d commits in %v with none active, want at most %d (one per poll)",
					reads, writes, took, most)
			}

			// A webhook made here: the next event goes at once, though the last read found none
			// active and the poll is long.
			o.Poll, o.PollMax = 5*time.Second, 5*time.Second
			e2 := newEnv(t, openStore(t, engineConfig(t, engine))) // its own server, without the worker above
			stop := startDeliveries(t, e2.store, o)
			time.Sleep(100 * time.Millisecond)
			here := newReceiver(t, func(int) (int, time.Duration) { return http.StatusOK, 0 })
			e2.hook(t, here)
			start := time.Now()
			e2.mkPage(t, e2.full, wsParent, "Delivered at once")
			waitFor(t, "the event of a webhook made here", func() bool {
				_, acked, _ := here.snapshot()
				return len(acked) == 1
			})
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("the event of a webhook made in this process took %v, want far less than the poll (%v)", d, o.Poll)
			}
			stop()

			// A webhook made by another server on the same database: this server's events reach it.
			plain := cfg
			plain.Observe = nil
			other := openStore(t, plain)
			there := newReceiver(t, func(int) (int, time.Duration) { return http.StatusOK, 0 })
			there.secret = "whsec_" + strings.Repeat("ab", 32)
			ctx := context.Background()
			last, _, err := other.EventHead(ctx, e.ws.ID)
			if err != nil {
				t.Fatal(err)
			}
			w := &quire.Webhook{ID: quire.NewID(), WorkspaceID: e.ws.ID, URL: there.srv.URL + "/hook", Secret: there.secret,
				Status: quire.WebhookActive, Position: last, CreatedMs: quire.NowMillis()}
			if err := other.CreateWebhook(ctx, w); err != nil {
				t.Fatal(err)
			}
			e.mkPage(t, e.full, wsParent, "For the other server's webhook")
			checkDelivered(t, there, e.eventIDs(t)[last:])
		})
	}
}
