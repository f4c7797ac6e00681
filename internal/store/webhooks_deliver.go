package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/quire-dev/quire/internal/quire"
)

// ErrLeaseLost is returned by the writes of a delivery when the webhook's lease is no longer
// the caller's (it expired and another server took it, or the webhook was deleted): the caller
// stops, and the event it delivered is delivered again by the new holder (at least once).
var ErrLeaseLost = errors.New("store: webhook lease lost")

// ClaimWebhooks leases up to limit active webhooks that are due at nowMs and whose workspace
// has events after their position, for leaseMs, to owner (a value unique to this claim).
//
// The delivery workers claim only when WebhookDue said one is due, and nearly always the
// first claim takes it; the read below still answers "none" on the read pool (prepared once per
// connection on SQLite, reads.go) when another worker or server took it first, so such a round
// neither prepares the UPDATE nor takes the writer, which an append waited for
// (docs/performance.md, "Append over HTTP, third pass").
func (s *Store) ClaimWebhooks(ctx context.Context, owner string, nowMs, leaseMs int64, limit int) ([]string, error) {
	const due = pendingWebhooks + ` AND w.next_attempt_ms <= $1 AND w.lease_until <= $1`
	var found bool
	if err := s.hot().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 `+due+`)`, nowMs).Scan(&found); err != nil || !found {
		return nil, err
	}
	pick := `SELECT w.id ` + due + ` ORDER BY w.next_attempt_ms LIMIT $4`
	if s.engine == Postgres {
		pick += ` FOR UPDATE OF w SKIP LOCKED`
	}
	var ids []string
	err := s.InTx(ctx, func(tx *Tx) error {
		rows, err := tx.tx.QueryContext(ctx, `UPDATE webhooks SET lease_owner = $2, lease_until = $1 + $3
			WHERE id IN (`+pick+`) RETURNING id`, nowMs, owner, leaseMs, limit)
		ids, err = scanAll(rows, err, func(r interface{ Scan(...any) error }) (string, error) {
			var id string
			return id, r.Scan(&id)
		})
		return err
	})
	return ids, err
}

// pendingWebhooks are the active webhooks whose workspace has events after their position,
// numbered or not yet (PostgreSQL's provisional events, negative, stampEvents): the worker
// reads them through Events, which numbers them. The probe for one is a range of the primary key.
const pendingWebhooks = `FROM webhooks w JOIN event_heads h ON h.workspace_id = w.workspace_id
		WHERE w.status = 'active' AND (h.seq > w.position
			OR EXISTS (SELECT 1 FROM events e WHERE e.workspace_id = w.workspace_id AND e.seq < 0))`

// WebhookDue tells the delivery loop when to claim next: at dueMs, the earliest time a webhook
// with events to deliver may be claimed (the later of its next attempt and the end of its
// lease; at or before now when one is due), or never (ok false) while no webhook has events to
// deliver; active says whether any webhook of any workspace is active, events to deliver or
// not (while none is, the loop need not ask after each commit: service.WebhookWorker.watch).
// One read on the read pool, so that a server with nothing to deliver, the usual case, asks
// this once per commit or poll and never takes the writer; a retry due in ten seconds is
// claimed then rather than found by polls until then.
func (s *Store) WebhookDue(ctx context.Context) (dueMs int64, ok, active bool, err error) {
	var due sql.NullInt64
	err = s.hot().QueryRowContext(ctx, `SELECT (SELECT MIN(CASE WHEN w.next_attempt_ms > w.lease_until
		THEN w.next_attempt_ms ELSE w.lease_until END) `+pendingWebhooks+`),
		EXISTS (SELECT 1 FROM webhooks WHERE status = 'active')`).Scan(&due, &active)
	return due.Int64, due.Valid, active, err
}

// LeasedWebhook reads webhook id as its lease holder owner sees it.
func (s *Store) LeasedWebhook(ctx context.Context, id, owner string) (*quire.Webhook, error) {
	w, err := scanWebhook(s.read.QueryRowContext(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = $1 AND lease_owner = $2`, id, owner))
	if err != nil {
		return nil, ErrLeaseLost
	}
	return w, nil
}

// WebhookProgress is what a delivery attempt changes in its webhook.
type WebhookProgress struct {
	Position       int64
	Status         string
	NextAttemptMs  int64
	Attempts       int
	FailingSinceMs int64
	Delivery       *quire.WebhookDelivery // the attempt to record; nil for events skipped by type
}

// keptDeliveries is how many attempts of each webhook GET …/deliveries can show.
const keptDeliveries = 100

// AdvanceWebhook writes p to webhook id if owner still holds its lease, with the attempt.
func (s *Store) AdvanceWebhook(ctx context.Context, id, owner string, p WebhookProgress) error {
	return s.InTx(ctx, func(tx *Tx) error {
		res, err := tx.tx.ExecContext(ctx, `UPDATE webhooks SET position = $3, status = $4, next_attempt_ms = $5,
			attempts = $6, failing_since_ms = $7 WHERE id = $1 AND lease_owner = $2`,
			id, owner, p.Position, p.Status, p.NextAttemptMs, p.Attempts, p.FailingSinceMs)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, ErrLeaseLost)
		}
		d := p.Delivery
		if d == nil {
			return nil
		}
		if _, err := tx.tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (`+deliveryCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			d.ID, id, d.EventID, d.EventSeq, d.Attempt, d.StatusCode, d.Error, d.DurationMs, d.CreatedMs); err != nil {
			return err
		}
		_, err = tx.tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE webhook_id = $1 AND id NOT IN (
			SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_ms DESC, id DESC LIMIT $2)`, id, keptDeliveries)
		return err
	})
}

// ReleaseWebhook ends owner's lease of webhook id, so that another server may take it at once.
func (s *Store) ReleaseWebhook(ctx context.Context, id, owner string) error {
	_, err := s.write.ExecContext(ctx, `UPDATE webhooks SET lease_owner = '', lease_until = 0 WHERE id = $1 AND lease_owner = $2`, id, owner)
	return err
}
