package service

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// SignWebhook is the Quire-Signature header of body sent at unix time t: the time, and the
// hex HMAC-SHA256 of "t.body" keyed with the webhook's secret (the whole string, prefix too).
func SignWebhook(secret string, t int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	ts := strconv.FormatInt(t, 10)
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// WebhookWorker delivers the webhooks' events. Every server runs one; they share the work by
// leasing webhooks in the store, so each webhook is delivered by one server at a time, in order.
type WebhookWorker struct {
	svc    *Service
	o      WebhookOptions
	encode func(quire.Event) ([]byte, error)
	client *http.Client
	log    *slog.Logger
}

// webhookWorkers is how many webhooks one server delivers at once: a slow receiver holds one.
const webhookWorkers = 4

// NewWebhookWorker returns the worker of svc; encode makes an event's body (the API's event
// object, which the service does not know the shape of).
func NewWebhookWorker(svc *Service, encode func(quire.Event) ([]byte, error), logger *slog.Logger) *WebhookWorker {
	o := svc.webhooks
	dialer := &net.Dialer{Timeout: o.Timeout, Control: func(_, address string, _ syscall.RawConn) error {
		// The address is the one resolved and about to be dialled: a name that resolves to a
		// private address is refused here, whatever the URL said.
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip := net.ParseIP(host)
		if ip == nil || !(o.AllowPrivate || ip.IsLoopback() || publicIP(ip)) {
			return fmt.Errorf("webhook: %s is a private address (see --webhook-allow-private)", host)
		}
		return nil
	}}
	transport := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: o.Timeout, MaxIdleConnsPerHost: 2,
		IdleConnTimeout: time.Minute, ForceAttemptHTTP2: true} // no Proxy: the dial check must see the receiver
	client := &http.Client{Transport: transport, Timeout: o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &WebhookWorker{svc: svc, o: o, encode: encode, client: client, log: logger}
}

// Run delivers until ctx ends. One loop (watch) asks the store when a webhook is due and wakes
// the webhookWorkers workers, which claim and deliver until none is left: a server with nothing
// to deliver reads one row per commit or poll, not one per worker.
func (w *WebhookWorker) Run(ctx context.Context) {
	wake := make(chan struct{}, webhookWorkers)
	done := make(chan struct{})
	for range webhookWorkers {
		go func() {
			defer func() { done <- struct{}{} }()
			w.work(ctx, wake)
		}()
	}
	w.watch(ctx, wake)
	for range webhookWorkers {
		<-done
	}
	w.client.CloseIdleConnections()
}

// work runs rounds after each wake until a round finds nothing due.
func (w *WebhookWorker) work(ctx context.Context, wake <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
		for ctx.Err() == nil {
			worked, err := w.round(ctx)
			if err != nil && ctx.Err() == nil {
				w.log.Warn("webhook delivery", "error", err)
			}
			if !worked {
				break
			}
		}
	}
}

// watch wakes the workers whenever a webhook is due. It asks the store after every commit of
// events in this process (the bell), when a known retry or lease comes due, and otherwise by a
// poll for what other servers committed: o.Poll after a commit or a find, doubling while
// nothing is found up to o.PollMax, so that an idle server asks every few seconds instead of
// several times a second (docs/performance.md, "Background work on an idle server, sixth
// pass"). The poll bounds how late another server's event is delivered when that server's own
// worker cannot (it stopped, or its receiver's lease is held here).
//
// While the last read found no active webhook at all, a commit here has nobody to deliver to
// unless a webhook was made or resumed since: in this process (WebhooksChanged rings, and the
// watch asks at once) or on another server sharing the database, which the watch learns by
// asking again o.Poll after that read, whatever commits meanwhile. So under a stream of writes
// a server without webhooks asks twice a second rather than after every commit (a read that,
// coming just after a commit, cost 3% of the server's CPU per append: docs/performance.md,
// "Append, eleventh pass"), and a webhook made on another server is delivered this server's
// events at most o.Poll later than the commit's own read would have.
func (w *WebhookWorker) watch(ctx context.Context, wake chan<- struct{}) {
	poll := w.o.Poll
	timer := time.NewTimer(poll)
	defer timer.Stop()
	for {
		bell := w.svc.EventsCommitted() // before the read: a commit after it rings
		changed := w.svc.store.WebhooksChanged()
		dueMs, pending, active, err := w.svc.store.WebhookDue(ctx)
		if err != nil && ctx.Err() == nil {
			w.log.Warn("webhook delivery", "error", err)
		}
		read := time.Now()
		var wait time.Duration
		if w.o.due(err, pending, dueMs, quire.NowMillis()) {
			for range webhookWorkers - len(wake) {
				wake <- struct{}{} // never blocks: only this loop sends, and there is room
			}
			poll, wait = w.o.Poll, w.o.Poll
		} else {
			wait, poll = w.o.rest(err, pending, dueMs, quire.NowMillis(), poll)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-changed:
			poll = w.o.Poll
		case <-bell:
			poll = w.o.Poll
			if err == nil && !active && !w.idleUntil(ctx, timer, read.Add(w.o.Poll), changed) {
				return
			}
		case <-timer.C:
		}
	}
}

// idleUntil waits until t or until changed rings, on timer; false when ctx ended first.
func (w *WebhookWorker) idleUntil(ctx context.Context, timer *time.Timer, t time.Time, changed <-chan struct{}) bool {
	timer.Reset(time.Until(t))
	select {
	case <-ctx.Done():
		return false
	case <-changed:
	case <-timer.C:
	}
	return true
}

// due reports whether WebhookDue's answer says a webhook may be claimed now.
func (o WebhookOptions) due(err error, pending bool, dueMs, nowMs int64) bool {
	return err == nil && pending && dueMs <= nowMs
}

// rest is how long the watch waits when nothing is due, and the poll after that: a failed read
// is asked again after Poll; otherwise the wait is the poll, or less when a known retry or lease
// ends sooner, and the poll doubles up to PollMax.
func (o WebhookOptions) rest(err error, pending bool, dueMs, nowMs int64, poll time.Duration) (wait, next time.Duration) {
	if err != nil {
		return o.Poll, poll
	}
	wait = poll
	if pending {
		wait = min(wait, time.Duration(dueMs-nowMs)*time.Millisecond)
	}
	return wait, min(2*poll, o.PollMax)
}

// round claims one due webhook and delivers what it can; worked is false when none was due.
func (w *WebhookWorker) round(ctx context.Context) (worked bool, err error) {
	owner := quire.NewID()
	ids, err := w.svc.store.ClaimWebhooks(ctx, owner, quire.NowMillis(), w.o.Lease.Milliseconds(), 1)
	if err != nil || len(ids) == 0 {
		return false, err
	}
	err = w.deliver(ctx, ids[0], owner)
	// Released with a context of its own: a server stopping lets another take the webhook now.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if errors.Is(err, store.ErrLeaseLost) {
		err = nil
	}
	return true, errors.Join(err, w.svc.store.ReleaseWebhook(rctx, ids[0], owner))
}

// deliver sends webhook id's events after its position, in order, until one fails, none is
// left, or the lease is nearly used (what is left covers the last attempt).
func (w *WebhookWorker) deliver(ctx context.Context, id, owner string) error {
	wh, err := w.svc.store.LeasedWebhook(ctx, id, owner)
	if err != nil {
		return err
	}
	end := time.Now().Add(w.o.Lease - 2*w.o.Timeout)
	for time.Now().Before(end) {
		evs, err := w.svc.store.Events(ctx, wh.WorkspaceID, wh.Position, 100, store.EventFilter{})
		if err != nil || len(evs) == 0 {
			return err
		}
		skipped := false
		for _, ev := range evs {
			if len(wh.EventTypes) > 0 && !slices.Contains(wh.EventTypes, ev.Type) {
				wh.Position, skipped = ev.Seq, true
				continue
			}
			ok, err := w.attempt(ctx, wh, owner, ev)
			if err != nil || !ok {
				return err
			}
			skipped = false
			if !time.Now().Before(end) {
				return nil
			}
		}
		if skipped {
			if err := w.progress(ctx, wh, owner, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// attempt posts ev once and records the outcome; ok is true when the receiver acknowledged it.
func (w *WebhookWorker) attempt(ctx context.Context, wh *quire.Webhook, owner string, ev quire.Event) (bool, error) {
	body, err := w.encode(ev)
	if err != nil {
		return false, err
	}
	t0 := time.Now()
	code, failure := w.post(ctx, wh, ev, body)
	if ctx.Err() != nil {
		return false, ctx.Err() // the server stops: the attempt did not fail, it was cut short
	}
	d := &quire.WebhookDelivery{ID: quire.NewID(), EventID: ev.ID, EventSeq: ev.Seq, Attempt: wh.Attempts + 1,
		StatusCode: code, Error: failure, DurationMs: time.Since(t0).Milliseconds(), CreatedMs: quire.NowMillis()}
	if failure == "" {
		wh.Position, wh.Attempts, wh.FailingSinceMs, wh.NextAttemptMs = ev.Seq, 0, 0, 0
		return true, w.progress(ctx, wh, owner, d)
	}
	now := quire.NowMillis()
	wh.Attempts++
	if wh.FailingSinceMs == 0 {
		wh.FailingSinceMs = now
	}
	wh.NextAttemptMs = now + w.backoff(wh.Attempts).Milliseconds()
	if now-wh.FailingSinceMs >= w.o.RetryFor.Milliseconds() {
		wh.Status = quire.WebhookFailing
		w.log.Warn("webhook failing", "webhook_id", wh.ID, "event_id", ev.ID, "attempts", wh.Attempts)
	}
	return false, w.progress(ctx, wh, owner, d)
}

func (w *WebhookWorker) progress(ctx context.Context, wh *quire.Webhook, owner string, d *quire.WebhookDelivery) error {
	return w.svc.store.AdvanceWebhook(ctx, wh.ID, owner, store.WebhookProgress{Position: wh.Position, Status: wh.Status,
		NextAttemptMs: wh.NextAttemptMs, Attempts: wh.Attempts, FailingSinceMs: wh.FailingSinceMs, Delivery: d})
}

// backoff is the wait after the nth failure in a row: MinBackoff doubled n-1 times, at most
// MaxBackoff, less up to half of it at random so that receivers back up are not all retried
// at the same instant.
func (w *WebhookWorker) backoff(n int) time.Duration {
	d := w.o.MaxBackoff
	if n <= 30 {
		d = min(w.o.MinBackoff<<(n-1), w.o.MaxBackoff)
	}
	return d - time.Duration(rand.Int64N(int64(d)/2+1))
}

// post sends body to the webhook's URL; failure is "" for a 2xx answer, else why it failed.
func (w *WebhookWorker) post(ctx context.Context, wh *quire.Webhook, ev quire.Event, body []byte) (code int, failure string) {
	if msg := webhookURLProblem(wh.URL, w.o.AllowPrivate); msg != "" {
		return 0, msg // the URL was allowed when it was set, but the server's policy changed
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wh.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Quire-Webhooks/1")
	req.Header.Set("Quire-Webhook-Id", wh.ID)
	req.Header.Set("Quire-Event-Id", ev.ID)
	req.Header.Set("Quire-Signature", SignWebhook(wh.Secret, time.Now().Unix(), body))
	res, err := w.client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // lets the connection be reused
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, "the receiver answered " + res.Status
	}
	return res.StatusCode, ""
}
