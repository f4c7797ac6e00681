package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-dev/quire/client"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// flakyProxy stands between the client and the real server and spoils the first answers to
// POST /v2/pages: the first try is refused with 429 before reaching the server, the second
// reaches it (the page is created) but its answer is lost with the connection. It records
// every try's Idempotency-Key and whether the server replayed.
type flakyProxy struct {
	mu       sync.Mutex
	keys     []string
	replayed []bool
}

func (p *flakyProxy) handler(target string) http.Handler {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v2/pages" {
			rp.ServeHTTP(w, r)
			return
		}
		p.mu.Lock()
		p.keys = append(p.keys, r.Header.Get("Idempotency-Key"))
		try := len(p.keys)
		p.mu.Unlock()
		switch try {
		case 1:
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"object":"error","status":429,"code":"rate_limited","message":"slow down","request_id":"req_proxy","details":[]}`))
		case 2:
			rec := httptest.NewRecorder()
			rp.ServeHTTP(rec, r)
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close() // the server committed; the client never hears of it
			}
		default:
			rec := httptest.NewRecorder()
			rp.ServeHTTP(rec, r)
			p.mu.Lock()
			p.replayed = append(p.replayed, rec.Header().Get("Idempotent-Replayed") == "true")
			p.mu.Unlock()
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		}
	})
}

func TestRetryKeepsIdempotencyKey(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		s := newServer(t, st, 0)
		proxy := &flakyProxy{}
		front := httptest.NewServer(proxy.handler(s.url))
		t.Cleanup(front.Close)
		c := client.New(front.URL, s.token, client.WithBackoff(10*time.Millisecond, 3*time.Second))
		ctx := context.Background()

		start := time.Now()
		page := must(c.Pages.Create(ctx, client.PageCreate{Properties: map[string]client.PropertyValue{"title": client.TitleValue("Once")}}))(t)
		if time.Since(start) < 900*time.Millisecond {
			t.Fatalf("the create took %v: Retry-After: 1 was not honoured", time.Since(start))
		}
		if len(proxy.keys) < 3 || proxy.keys[0] == "" {
			t.Fatalf("tries carried keys %q, want 3 or more tries with a key", proxy.keys)
		}
		for _, k := range proxy.keys {
			if k != proxy.keys[0] {
				t.Fatalf("the retries changed the Idempotency-Key: %q", proxy.keys)
			}
		}
		if len(proxy.replayed) == 0 || !proxy.replayed[0] {
			t.Fatalf("the third try was not a replay of the committed write: %v", proxy.replayed)
		}
		top := collect(t, c.Pages.List(ctx, client.ListPagesOptions{}))
		if len(top) != 1 || top[0].ID != page.ID {
			t.Fatalf("top-level pages = %+v, want only %s: the write took effect more than once", top, page.ID)
		}

		// Another logical call gets another key: it creates a second page.
		second := must(c.Pages.Create(ctx, client.PageCreate{Properties: map[string]client.PropertyValue{"title": client.TitleValue("Twice")}}))(t)
		if second.ID == page.ID || proxy.keys[len(proxy.keys)-1] == proxy.keys[0] {
			t.Fatalf("a new call reused the first call's key")
		}
		// A key the caller chooses is sent as is.
		must(c.Pages.Create(ctx, client.PageCreate{Properties: map[string]client.PropertyValue{"title": client.TitleValue("Mine")}}, client.IdempotencyKey("mine-1")))(t)
		if k := proxy.keys[len(proxy.keys)-1]; k != "mine-1" {
			t.Fatalf("IdempotencyKey sent %q", k)
		}
	})
}

// TestRetryOutsideAnswers covers answers only what stands in front of a server sends:
// a 503 that names its wait in RateLimit-Reset, a gateway's HTML error, a wait longer than
// the caller's deadline. The handler plays that front; the client is the code under test.
func TestRetryOutsideAnswers(t *testing.T) {
	var tries atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v2/users/me": // 503 twice, then the answer
			if tries.Add(1) <= 2 {
				w.Header().Set("RateLimit-Remaining", "0")
				w.Header().Set("RateLimit-Reset", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			_, _ = w.Write([]byte(`{"object":"bot_user","id":"b1"}`))
		case "/v2/pages": // a refusal is final
			tries.Add(1)
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"object":"error","status":409,"code":"conflict","message":"stale","request_id":"req_1","details":[]}`))
		case "/v2/workspace":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html>bad gateway</html>"))
		default: // always busy, for a long time
			w.Header().Set("Retry-After", "5")
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(front.Close)
	c := client.New(front.URL, "quire_x", client.WithBackoff(10*time.Millisecond, 10*time.Second))
	ctx := context.Background()

	start := time.Now()
	me, err := c.Users.Me(ctx)
	if err != nil || me.ID != "b1" || tries.Load() != 3 || time.Since(start) < 1900*time.Millisecond {
		t.Fatalf("503 with RateLimit-Reset: %+v, %v after %d tries in %v", me, err, tries.Load(), time.Since(start))
	}

	var apiErr *client.Error
	tries.Store(0)
	if _, err := c.Pages.Create(ctx, client.PageCreate{}); !errors.As(err, &apiErr) || apiErr.Code != client.CodeConflict || apiErr.RequestID != "req_1" || tries.Load() != 1 {
		t.Fatalf("409: %v after %d tries", err, tries.Load())
	}

	_, err = c.Workspace.Get(ctx)
	if !errors.As(err, &apiErr) || apiErr.Status != 502 || apiErr.Code != "" || !strings.Contains(apiErr.Message, "bad gateway") {
		t.Fatalf("gateway error: %v", err)
	}

	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := c.Pages.Get(short, "p1"); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("a wait past the deadline: %v after %v", err, time.Since(start))
	}
}
