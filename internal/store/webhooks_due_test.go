package store_test

import (
	"context"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestWebhookDue: the delivery loop's one read says "none" while no active webhook has events
// after its position, "now" when one does, and the later of a failed attempt's retry and a
// lease's end while that one waits; a failing webhook is never due. It says whether any webhook
// is active: not before the first, nor once the only one is failing.
func TestWebhookDue(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seed(t, s)
		record := func() {
			t.Helper()
			if err := s.InTx(ctx, func(tx *store.Tx) error {
				tx.Record(event(ws.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		check := func(what string, wantMs int64, wantPending bool) {
			t.Helper()
			dueMs, pending, active, err := s.WebhookDue(ctx)
			wantActive := what != "no webhook" && what != "failing" // the test's one webhook is active in between
			if err != nil || pending != wantPending || pending && dueMs != wantMs || active != wantActive {
				t.Fatalf("%s: WebhookDue = %d, %v, %v, %v; want %d, %v, %v", what, dueMs, pending, active, err, wantMs, wantPending, wantActive)
			}
		}
		check("no webhook", 0, false)
		record() // before the webhook: not its to deliver
		last, _, err := s.EventHead(ctx, ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		w := &quire.Webhook{ID: quire.NewID(), WorkspaceID: ws.ID, URL: "https://example.com/h", Secret: "whsec_x",
			Status: quire.WebhookActive, Position: last, CreatedMs: quire.NowMillis()}
		if err := s.CreateWebhook(ctx, w); err != nil {
			t.Fatal(err)
		}
		check("a webhook at the feed's end", 0, false)
		record()
		check("an event after its position", 0, true)

		now := quire.NowMillis()
		ids, err := s.ClaimWebhooks(ctx, "owner", now, 60_000, 1)
		if err != nil || len(ids) != 1 {
			t.Fatalf("claim = %v, %v", ids, err)
		}
		check("leased", now+60_000, true)
		p := store.WebhookProgress{Position: last, Status: quire.WebhookActive, NextAttemptMs: now + 90_000, Attempts: 1, FailingSinceMs: now}
		if err := s.AdvanceWebhook(ctx, w.ID, "owner", p); err != nil {
			t.Fatal(err)
		}
		check("leased, retry after the lease", now+90_000, true)
		if err := s.ReleaseWebhook(ctx, w.ID, "owner"); err != nil {
			t.Fatal(err)
		}
		check("released, retry due later", now+90_000, true)
		if ids, err := s.ClaimWebhooks(ctx, "other", now, 60_000, 1); err != nil || len(ids) != 0 {
			t.Fatalf("claim before the retry = %v, %v; want none", ids, err)
		}
		if ids, err := s.ClaimWebhooks(ctx, "other", now+90_000, 60_000, 1); err != nil || len(ids) != 1 {
			t.Fatalf("claim at the retry = %v, %v; want it", ids, err)
		}
		p.Status = quire.WebhookFailing
		if err := s.AdvanceWebhook(ctx, w.ID, "other", p); err != nil {
			t.Fatal(err)
		}
		check("failing", 0, false)
	})
}
