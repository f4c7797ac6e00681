package service

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWebhookURLProblem checks which URLs a webhook may call, by default and with
// --webhook-allow-private.
func TestWebhookURLProblem(t *testing.T) {
	for _, tc := range []struct {
		url           string
		ok, okPrivate bool
	}{
		{"https://hooks.example.com/quire", true, true},
		{"https://203.0.113.7:8443/x", true, true},
		{"http://127.0.0.1:9000/hook", true, true},
		{"http://[::1]:9000/hook", true, true},
		{"http://localhost:9000/hook", true, true},
		{"https://127.0.0.1/hook", true, true},
		{"http://hooks.example.com/quire", false, true},
		{"http://10.1.2.3/hook", false, true},
		{"https://10.1.2.3/hook", false, true},
		{"https://192.168.1.10/hook", false, true},
		{"https://169.254.169.254/latest/meta-data", false, true},
		{"https://[fd00::1]/hook", false, true},
		{"https://100.64.0.1/hook", false, true},
		{"https://0.0.0.0/hook", false, true},
		{"ftp://hooks.example.com/x", false, false},
		{"hooks.example.com/x", false, false},
		{"https://user:pw@hooks.example.com/x", false, false},
		{"mailto:a@example.com", false, false},
		{"", false, false},
	} {
		if got := webhookURLProblem(tc.url, false) == ""; got != tc.ok {
			t.Errorf("webhookURLProblem(%q) allowed = %v, want %v", tc.url, got, tc.ok)
		}
		if got := webhookURLProblem(tc.url, true) == ""; got != tc.okPrivate {
			t.Errorf("webhookURLProblem(%q, private) allowed = %v, want %v", tc.url, got, tc.okPrivate)
		}
	}
}

// TestPublicIP is the check made on the address a delivery dials.
func TestPublicIP(t *testing.T) {
	for ip, want := range map[string]bool{"8.8.8.8": true, "2606:4700::1111": true, "10.0.0.1": false, "172.16.5.4": false,
		"192.168.0.1": false, "169.254.1.1": false, "fe80::1": false, "fc00::1": false, "100.127.255.1": false, "::": false, "224.0.0.1": false} {
		if got := publicIP(net.ParseIP(ip)); got != want {
			t.Errorf("publicIP(%s) = %v, want %v", ip, got, want)
		}
	}
}

// TestSignWebhook checks the signature against a vector computed apart (Python's hmac).
func TestSignWebhook(t *testing.T) {
	got := SignWebhook("whsec_test", 1700000000, []byte(`{"a":1}`))
	const want = "t=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789"
	if got != want {
		t.Fatalf("SignWebhook = %s, want %s", got, want)
	}
}

// TestWebhookBackoff checks that waits double from MinBackoff, stop at MaxBackoff, and are
// jittered by at most half.
func TestWebhookBackoff(t *testing.T) {
	w := &WebhookWorker{o: WebhookOptions{MinBackoff: time.Second, MaxBackoff: time.Hour}.withDefaults()}
	for n, full := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 5: 16 * time.Second, 13: time.Hour, 200: time.Hour} {
		for range 20 {
			if d := w.backoff(n); d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, full/2, full)
			}
		}
	}
}

// TestWebhookDialRefusesPrivate: the address a delivery dials is checked whatever the URL
// said, so a host name that resolves to a private address is refused before connecting.
func TestWebhookDialRefusesPrivate(t *testing.T) {
	for _, tc := range []struct {
		allowPrivate bool
		addr         string
		refused      bool
	}{
		{false, "10.255.255.1:443", true},
		{false, "[fd00::1]:443", true},
		{false, "169.254.169.254:80", true},
		{true, "127.0.0.1:1", false}, // refused by the kernel, not by the check
		{false, "127.0.0.1:1", false},
	} {
		svc := &Service{webhooks: WebhookOptions{AllowPrivate: tc.allowPrivate, Timeout: 200 * time.Millisecond}.withDefaults()}
		w := NewWebhookWorker(svc, nil, nil)
		_, err := w.client.Transport.(*http.Transport).DialContext(context.Background(), "tcp", tc.addr)
		if got := err != nil && strings.Contains(err.Error(), "private address"); got != tc.refused {
			t.Errorf("dial %s (allow private %v): %v, want refused by the check = %v", tc.addr, tc.allowPrivate, err, tc.refused)
		}
	}
}

// TestWebhookWatchSchedule: while nothing is pending the watch's poll doubles from Poll to
// PollMax (an idle server asks rarely); a retry or lease ending sooner shortens the wait to it,
// without resetting the poll; a failed read is asked again after Poll; only a due webhook
// wakes the workers.
func TestWebhookWatchSchedule(t *testing.T) {
	o := WebhookOptions{}.withDefaults()
	if o.Poll != 500*time.Millisecond || o.PollMax != 5*time.Second {
		t.Fatalf("defaults Poll %v, PollMax %v; want 500ms, 5s (docs/api.md says so)", o.Poll, o.PollMax)
	}
	if got := (WebhookOptions{Poll: 50 * time.Millisecond}).withDefaults().PollMax; got != 500*time.Millisecond {
		t.Fatalf("PollMax for Poll 50ms = %v, want 500ms", got)
	}
	if got := (WebhookOptions{Poll: time.Second, PollMax: time.Millisecond}).withDefaults().PollMax; got != time.Second {
		t.Fatalf("PollMax below Poll = %v, want Poll", got)
	}
	const now = 1_000_000
	var waits []time.Duration
	for poll := o.Poll; len(waits) < 6; {
		if o.due(nil, false, 0, now) {
			t.Fatal("nothing pending is due")
		}
		var wait time.Duration
		wait, poll = o.rest(nil, false, 0, now, poll)
		waits = append(waits, wait)
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if !slices.Equal(waits, want) {
		t.Fatalf("idle waits %v, want %v", waits, want)
	}
	for _, tc := range []struct {
		name      string
		err       error
		pending   bool
		dueMs     int64
		poll      time.Duration
		due       bool
		wait, nxt time.Duration
	}{
		{"due now", nil, true, now, 4 * time.Second, true, 0, 0},
		{"overdue", nil, true, now - 10, time.Second, true, 0, 0},
		{"retry sooner than the poll", nil, true, now + 300, 4 * time.Second, false, 300 * time.Millisecond, 5 * time.Second},
		{"retry later than the poll", nil, true, now + 60_000, time.Second, false, time.Second, 2 * time.Second},
		{"read failed", errors.New("down"), true, now, 4 * time.Second, false, 500 * time.Millisecond, 4 * time.Second},
	} {
		if got := o.due(tc.err, tc.pending, tc.dueMs, now); got != tc.due {
			t.Errorf("%s: due = %v, want %v", tc.name, got, tc.due)
		}
		if tc.due {
			continue
		}
		if wait, next := o.rest(tc.err, tc.pending, tc.dueMs, now, tc.poll); wait != tc.wait || next != tc.nxt {
			t.Errorf("%s: rest = %v, %v; want %v, %v", tc.name, wait, next, tc.wait, tc.nxt)
		}
	}
}
