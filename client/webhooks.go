package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// WebhooksService manages the workspace's webhooks (a workspace-scoped token with pages.read).
type WebhooksService struct{ c *Client }

// Webhook POSTs the workspace's events (or those of EventTypes) to URL, signed with its
// secret, in the feed's order. Secret is set only in Create's answer.
type Webhook struct {
	Object      string    `json:"object"`
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	EventTypes  []string  `json:"event_types"`
	Description string    `json:"description"`
	Status      string    `json:"status"` // active or failing
	Secret      string    `json:"secret,omitempty"`
	CreatedTime time.Time `json:"created_time"`
}

// WebhookCreate is the body of Create.
type WebhookCreate struct {
	URL         string   `json:"url"`
	EventTypes  []string `json:"event_types,omitempty"`
	Description string   `json:"description,omitempty"`
}

// WebhookPatch changes what is set; Status "active" resumes a failing webhook.
type WebhookPatch struct {
	URL         *string   `json:"url,omitempty"`
	EventTypes  *[]string `json:"event_types,omitempty"` // an empty list: every type
	Description *string   `json:"description,omitempty"`
	Status      string    `json:"status,omitempty"`
}

// WebhookDelivery is one attempt to deliver an event.
type WebhookDelivery struct {
	Object      string    `json:"object"`
	ID          string    `json:"id"`
	EventID     string    `json:"event_id"`
	Attempt     int       `json:"attempt"`
	StatusCode  *int      `json:"status_code"` // nil: no answer (see Error)
	Error       string    `json:"error,omitempty"`
	Succeeded   bool      `json:"succeeded"`
	DurationMs  int64     `json:"duration_ms"`
	CreatedTime time.Time `json:"created_time"`
}

// Create makes a webhook; the answer's Secret is shown this once.
func (s *WebhooksService) Create(ctx context.Context, w WebhookCreate, opts ...CallOption) (*Webhook, error) {
	var out Webhook
	_, err := s.c.do(ctx, request{method: "POST", path: "/v2/webhooks", body: w, opts: opts}, &out)
	return ret(&out, err)
}

// List answers the workspace's webhooks, oldest first, without their secrets.
func (s *WebhooksService) List(ctx context.Context) ([]*Webhook, error) {
	var out List[*Webhook]
	_, err := s.c.do(ctx, request{method: "GET", path: "/v2/webhooks"}, &out)
	if err != nil {
		return nil, err
	}
	return out.Results, nil
}

// Get answers webhook id, without its secret.
func (s *WebhooksService) Get(ctx context.Context, id string) (*Webhook, error) {
	var out Webhook
	_, err := s.c.do(ctx, request{method: "GET", path: "/v2/webhooks/" + pathID(id)}, &out)
	return ret(&out, err)
}

// Update changes webhook id.
func (s *WebhooksService) Update(ctx context.Context, id string, p WebhookPatch, opts ...CallOption) (*Webhook, error) {
	var out Webhook
	_, err := s.c.do(ctx, request{method: "PATCH", path: "/v2/webhooks/" + pathID(id), body: p, opts: opts}, &out)
	return ret(&out, err)
}

// Delete deletes webhook id and its delivery log.
func (s *WebhooksService) Delete(ctx context.Context, id string) (*Webhook, error) {
	var out Webhook
	_, err := s.c.do(ctx, request{method: "DELETE", path: "/v2/webhooks/" + pathID(id)}, &out)
	return ret(&out, err)
}

// Deliveries answers webhook id's recent attempts, newest first.
func (s *WebhooksService) Deliveries(ctx context.Context, id string) ([]*WebhookDelivery, error) {
	var out List[*WebhookDelivery]
	_, err := s.c.do(ctx, request{method: "GET", path: "/v2/webhooks/" + pathID(id) + "/deliveries"}, &out)
	if err != nil {
		return nil, err
	}
	return out.Results, nil
}

// VerifySignature checks a delivery's Quire-Signature header against the webhook's secret and
// the body's raw bytes, refusing a signature older (or newer) than tolerance: a receiver
// calls it before trusting the event.
func VerifySignature(secret, header string, body []byte, tolerance time.Duration) error {
	ts, sig, ok := strings.Cut(strings.TrimPrefix(header, "t="), ",v1=")
	unix, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil {
		return errors.New("quire: malformed Quire-Signature")
	}
	if time.Since(time.Unix(unix, 0)).Abs() > tolerance {
		return errors.New("quire: Quire-Signature is too old")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	if !hmac.Equal([]byte(sig), []byte(hex.EncodeToString(mac.Sum(nil)))) {
		return errors.New("quire: Quire-Signature does not match")
	}
	return nil
}
