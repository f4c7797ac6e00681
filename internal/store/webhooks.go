package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

const webhookCols = `id, workspace_id, url, event_types, description, secret, status, position, created_ms,
	next_attempt_ms, attempts, failing_since_ms`

// webhookByID reads one webhook by workspace ($1) and id ($2).
const webhookByID = `SELECT ` + webhookCols + ` FROM webhooks WHERE workspace_id = $1 AND id = $2`

func scanWebhook(row interface{ Scan(...any) error }) (*quire.Webhook, error) {
	var w quire.Webhook
	var types string
	err := row.Scan(&w.ID, &w.WorkspaceID, &w.URL, &types, &w.Description, &w.Secret, &w.Status, &w.Position,
		&w.CreatedMs, &w.NextAttemptMs, &w.Attempts, &w.FailingSinceMs)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, quire.NotFound("the webhook")
	}
	if types != "" {
		w.EventTypes = strings.Split(types, ",")
	}
	return &w, err
}

// CreateWebhook stores w, whose Position is where its deliveries start.
func (s *Store) CreateWebhook(ctx context.Context, w *quire.Webhook) error {
	defer s.hooks.ring()
	return s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO webhooks (id, workspace_id, url, event_types, description, secret,
			status, position, created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			w.ID, w.WorkspaceID, w.URL, strings.Join(w.EventTypes, ","), w.Description, w.Secret, w.Status, w.Position, w.CreatedMs)
		return err
	})
}

// WebhooksChanged returns a channel closed when this process next creates or changes a
// webhook (CreateWebhook, UpdateWebhook), committed or not.
func (s *Store) WebhooksChanged() <-chan struct{} { return s.hooks.wait() }

// Webhook returns webhook id of workspace ws, or a not_found error.
func (s *Store) Webhook(ctx context.Context, ws, id string) (*quire.Webhook, error) {
	return scanWebhook(s.read.QueryRowContext(ctx, webhookByID, ws, id))
}

// Webhooks lists the webhooks of workspace ws, oldest first.
func (s *Store) Webhooks(ctx context.Context, ws string) ([]*quire.Webhook, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE workspace_id = $1 ORDER BY created_ms, id`, ws)
	return scanAll(rows, err, scanWebhook)
}

// WebhookChange is what a PATCH sets; nil leaves a field as it is.
type WebhookChange struct {
	URL         *string
	EventTypes  *[]string
	Description *string
	Activate    bool // make a failing webhook active again, its failures forgotten
}

// UpdateWebhook applies c to webhook id of workspace ws and returns it.
func (s *Store) UpdateWebhook(ctx context.Context, ws, id string, c WebhookChange) (*quire.Webhook, error) {
	defer s.hooks.ring()
	var out *quire.Webhook
	err := s.InTx(ctx, func(tx *Tx) error {
		w, err := scanWebhook(tx.tx.QueryRowContext(ctx, webhookByID, ws, id))
		if err != nil {
			return err
		}
		if c.URL != nil {
			w.URL = *c.URL
		}
		if c.EventTypes != nil {
			w.EventTypes = *c.EventTypes
		}
		if c.Description != nil {
			w.Description = *c.Description
		}
		if c.Activate && w.Status != quire.WebhookActive {
			w.Status, w.Attempts, w.FailingSinceMs, w.NextAttemptMs = quire.WebhookActive, 0, 0, 0
		}
		_, err = tx.tx.ExecContext(ctx, `UPDATE webhooks SET url = $2, event_types = $3, description = $4, status = $5,
			attempts = $6, failing_since_ms = $7, next_attempt_ms = $8 WHERE id = $1`,
			id, w.URL, strings.Join(w.EventTypes, ","), w.Description, w.Status, w.Attempts, w.FailingSinceMs, w.NextAttemptMs)
		out = w
		return err
	})
	return out, err
}

// DeleteWebhook deletes webhook id of workspace ws with its deliveries and returns it.
func (s *Store) DeleteWebhook(ctx context.Context, ws, id string) (*quire.Webhook, error) {
	var out *quire.Webhook
	err := s.InTx(ctx, func(tx *Tx) error {
		w, err := scanWebhook(tx.tx.QueryRowContext(ctx, webhookByID, ws, id))
		if err != nil {
			return err
		}
		if _, err := tx.tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE webhook_id = $1`, id); err != nil {
			return err
		}
		_, err = tx.tx.ExecContext(ctx, `DELETE FROM webhooks WHERE id = $1`, id)
		out = w
		return err
	})
	return out, err
}

const deliveryCols = `id, webhook_id, event_id, event_seq, attempt, status_code, error, duration_ms, created_ms`

// WebhookDeliveries returns up to limit of webhook id's most recent attempts, newest first.
func (s *Store) WebhookDeliveries(ctx context.Context, id string, limit int) ([]quire.WebhookDelivery, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE webhook_id = $1
		ORDER BY created_ms DESC, id DESC LIMIT $2`, id, limit)
	return scanAll(rows, err, func(r interface{ Scan(...any) error }) (quire.WebhookDelivery, error) {
		var d quire.WebhookDelivery
		return d, r.Scan(&d.ID, &d.WebhookID, &d.EventID, &d.EventSeq, &d.Attempt, &d.StatusCode, &d.Error, &d.DurationMs, &d.CreatedMs)
	})
}
