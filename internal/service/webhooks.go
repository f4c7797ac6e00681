package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// WebhookOptions tune webhook deliveries; the zero value is the production default. The
// durations are here, not flags, so that tests can make three days a few seconds.
type WebhookOptions struct {
	// AllowPrivate lets webhooks reach private addresses (10/8, 192.168/16, fc00::/7 …) and
	// plain http anywhere (quire serve --webhook-allow-private). Loopback is always allowed.
	AllowPrivate bool
	RetryFor     time.Duration // how long an event is retried before the webhook is failing; default 72 h
	MinBackoff   time.Duration // the wait after a first failure, doubled after each; default 1 s
	MaxBackoff   time.Duration // the longest wait between attempts; default 1 h
	Timeout      time.Duration // how long a receiver has to answer; default 10 s
	Poll         time.Duration // how soon after a commit or a find other servers' events are looked for; default 500 ms
	PollMax      time.Duration // the longest wait between those looks, reached while none is found; default 10 × Poll
	Lease        time.Duration // how long a server holds a webhook it delivers; default 1 min
}

func (o WebhookOptions) withDefaults() WebhookOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.RetryFor, 72*time.Hour)
	def(&o.MinBackoff, time.Second)
	def(&o.MaxBackoff, time.Hour)
	def(&o.Timeout, 10*time.Second)
	def(&o.Poll, 500*time.Millisecond)
	def(&o.Lease, time.Minute)
	def(&o.PollMax, 10*o.Poll)
	o.PollMax = max(o.PollMax, o.Poll)
	// A lease covers a round of deliveries and then the last attempt, which may take Timeout,
	// and the write of its outcome.
	o.Lease = max(o.Lease, 3*o.Timeout)
	return o
}

// WebhookSecretPrefix starts every webhook secret.
const WebhookSecretPrefix = "whsec_"

const (
	maxWebhookURL         = 2000
	maxWebhookDescription = 2000
	maxWebhooks           = 100 // per workspace
)

// NewWebhook is a validated POST /v2/webhooks body.
type NewWebhook struct {
	URL         string
	EventTypes  []string
	Description string
}

// DecodeNewWebhook validates a POST /v2/webhooks body, every problem with its path.
func (s *Service) DecodeNewWebhook(body map[string]any) (NewWebhook, error) {
	var p quire.Problems
	NewWebhookBody.Unknown(&p, body)
	var out NewWebhook
	if u, ok := jsonbody.RequiredStr(&p, "", body, "url"); ok {
		out.URL = s.checkWebhookURL(&p, u)
	}
	if v, ok := body["event_types"]; ok && v != nil {
		out.EventTypes = decodeEventTypes(&p, v)
	}
	if d, ok := jsonbody.Str(&p, "", body, "description"); ok {
		out.Description = checkDescription(&p, d)
	}
	return out, p.Err()
}

// DecodeWebhookChange validates a PATCH /v2/webhooks/{id} body.
func (s *Service) DecodeWebhookChange(body map[string]any) (store.WebhookChange, error) {
	var p quire.Problems
	WebhookChangeBody.Unknown(&p, body)
	var c store.WebhookChange
	if u, ok := jsonbody.Str(&p, "", body, "url"); ok {
		u = s.checkWebhookURL(&p, u)
		c.URL = &u
	}
	if v, ok := body["event_types"]; ok {
		types := []string{}
		if v != nil {
			types = decodeEventTypes(&p, v)
		}
		c.EventTypes = &types
	}
	if d, ok := jsonbody.Str(&p, "", body, "description"); ok {
		d = checkDescription(&p, d)
		c.Description = &d
	}
	if v, ok := body["status"]; ok {
		st, ok := jsonbody.Enum(&p, "status", v, []string{quire.WebhookActive})
		c.Activate = ok && st == quire.WebhookActive
	}
	return c, p.Err()
}

func decodeEventTypes(p *quire.Problems, v any) []string {
	items, ok := jsonbody.Array(p, "event_types", v, len(quire.EventTypes))
	if !ok {
		return nil
	}
	out := []string{}
	for i, it := range items {
		t, ok := jsonbody.Enum(p, jsonbody.Index("event_types", i), it, quire.EventTypes)
		if ok && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func checkDescription(p *quire.Problems, d string) string {
	if len(d) > maxWebhookDescription {
		p.AddDetail(quire.Beyond("description", quire.ReasonTooLong, maxWebhookDescription, int64(len(d))), "A description is at most 2000 bytes.")
	}
	return d
}

// checkWebhookURL reports at url a URL that webhooks may not call: https anywhere public or on
// loopback, http only on loopback, unless AllowPrivate. A host name is checked again when it
// is dialled (webhookDialer), since it may resolve anywhere.
func (s *Service) checkWebhookURL(p *quire.Problems, raw string) string {
	if len(raw) > maxWebhookURL {
		p.AddDetail(quire.Beyond("url", quire.ReasonTooLong, maxWebhookURL, int64(len(raw))), "A webhook URL is at most 2000 bytes.")
		return ""
	}
	if msg := webhookURLProblem(raw, s.webhooks.AllowPrivate); msg != "" {
		p.Add("url", quire.ReasonInvalidValue, msg)
		return ""
	}
	return raw
}

// webhookURLProblem says why raw may not be called, or "" when it may.
func webhookURLProblem(raw string, allowPrivate bool) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "url must be an absolute http or https URL."
	}
	if u.User != nil {
		return "url may not hold a user name or password."
	}
	host := u.Hostname()
	loopback := host == "localhost" || strings.HasSuffix(host, ".localhost")
	ip := net.ParseIP(host)
	if ip != nil {
		loopback = ip.IsLoopback()
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "url must be an http or https URL."
	case allowPrivate || loopback:
		return ""
	case u.Scheme == "http":
		return "url must be https; plain http is allowed only to loopback (or with the server's --webhook-allow-private)."
	case ip != nil && !publicIP(ip):
		return "url names a private address; the server allows only public ones (see --webhook-allow-private)."
	}
	return ""
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598), not public either.
var cgnat = &net.IPNet{IP: net.IPv4(100, 64, 0, 0), Mask: net.CIDRMask(10, 32)}

// publicIP reports whether a webhook may reach ip without --webhook-allow-private.
func publicIP(ip net.IP) bool {
	return !(ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || cgnat.Contains(ip))
}

// CreateWebhook adds a webhook to workspace ws; its deliveries start with the next event.
// The answer carries the secret, which no later read shows.
func (s *Service) CreateWebhook(ctx context.Context, ws string, nw NewWebhook) (*quire.Webhook, error) {
	if _, err := s.store.Workspace(ctx, ws); err != nil {
		return nil, err
	}
	existing, err := s.store.Webhooks(ctx, ws)
	if err != nil {
		return nil, err
	}
	if len(existing) >= maxWebhooks {
		return nil, quire.OverLimit(quire.Beyond("url", quire.ReasonTooMany, maxWebhooks, int64(len(existing)+1)),
			"A workspace has at most 100 webhooks; delete one first.")
	}
	last, _, err := s.store.EventHead(ctx, ws)
	if err != nil {
		return nil, err
	}
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	w := &quire.Webhook{ID: quire.NewID(), WorkspaceID: ws, URL: nw.URL, EventTypes: nw.EventTypes, Description: nw.Description,
		Secret: WebhookSecretPrefix + hex.EncodeToString(raw[:]), Status: quire.WebhookActive, Position: last, CreatedMs: quire.NowMillis()}
	return w, s.store.CreateWebhook(ctx, w)
}

// Webhooks lists workspace ws's webhooks; not_found when there is no such workspace (the
// admin command names it).
func (s *Service) Webhooks(ctx context.Context, ws string) ([]*quire.Webhook, error) {
	if _, err := s.store.Workspace(ctx, ws); err != nil {
		return nil, err
	}
	return s.store.Webhooks(ctx, ws)
}

// Webhook returns webhook id of workspace ws.
func (s *Service) Webhook(ctx context.Context, ws, id string) (*quire.Webhook, error) {
	if !quire.ValidID(id) {
		return nil, quire.NotFound("the webhook")
	}
	return s.store.Webhook(ctx, ws, id)
}

// UpdateWebhook applies a PATCH. Making a failing webhook active resumes its deliveries with
// the event that failed.
func (s *Service) UpdateWebhook(ctx context.Context, ws, id string, c store.WebhookChange) (*quire.Webhook, error) {
	if !quire.ValidID(id) {
		return nil, quire.NotFound("the webhook")
	}
	return s.store.UpdateWebhook(ctx, ws, id, c)
}

// DeleteWebhook deletes webhook id of workspace ws; its deliveries stop.
func (s *Service) DeleteWebhook(ctx context.Context, ws, id string) (*quire.Webhook, error) {
	if !quire.ValidID(id) {
		return nil, quire.NotFound("the webhook")
	}
	return s.store.DeleteWebhook(ctx, ws, id)
}

// WebhookDeliveries lists webhook id's recent attempts, newest first.
func (s *Service) WebhookDeliveries(ctx context.Context, ws, id string) ([]quire.WebhookDelivery, error) {
	if _, err := s.Webhook(ctx, ws, id); err != nil {
		return nil, err
	}
	return s.store.WebhookDeliveries(ctx, id, 100)
}
