package service

import (
	"context"
	"net"
	"net/http"
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
