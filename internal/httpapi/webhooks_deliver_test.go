package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// receiver is a webhook endpoint on loopback that checks every delivery's signature and
// headers and answers as answer says for the nth request (0-based).
type receiver struct {
	t      testing.TB
	srv    *httptest.Server
	secret string
	answer func(n int) (status int, delay time.Duration)

	mu       sync.Mutex
	attempts []string // event id of each request, in arrival order
	acked    []string // event id of each acknowledged request
	bad      []string // what was wrong with a request
}

func newReceiver(t testing.TB, answer func(n int) (int, time.Duration)) *receiver {
	r := &receiver{t: t, answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var ev struct{ ID, Object string }
	_ = json.Unmarshal(body, &ev)
	r.mu.Lock()
	n := len(r.attempts)
	r.attempts = append(r.attempts, ev.ID)
	if problem := verifyDelivery(r.secret, req, body, ev.ID, ev.Object); problem != "" {
		r.bad = append(r.bad, problem)
	}
	r.mu.Unlock()
	status, delay := r.answer(n)
	select {
	case <-time.After(delay):
	case <-req.Context().Done():
		return
	}
	w.WriteHeader(status)
	if status/100 == 2 {
		r.mu.Lock()
		r.acked = append(r.acked, ev.ID)
		r.mu.Unlock()
	}
}

// verifyDelivery checks a delivery as the documentation tells a receiver to: the signature
// over "t.body" with the secret, a recent t, and the headers naming the event.
func verifyDelivery(secret string, req *http.Request, body []byte, eventID, object string) string {
	ts, sig, ok := strings.Cut(req.Header.Get("Quire-Signature"), ",v1=")
	ts, ok2 := strings.CutPrefix(ts, "t=")
	unix, err := strconv.ParseInt(ts, 10, 64)
	if !ok || !ok2 || err != nil {
		return "malformed signature " + req.Header.Get("Quire-Signature")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := hex.EncodeToString(mac.Sum(nil))
	switch {
	case !hmac.Equal([]byte(sig), []byte(want)):
		return "signature does not verify"
	case time.Since(time.Unix(unix, 0)).Abs() > time.Minute:
		return "signature time is not now"
	case req.Header.Get("Quire-Event-Id") != eventID || object != "event":
		return "Quire-Event-Id " + req.Header.Get("Quire-Event-Id") + " for body event " + eventID
	case req.Header.Get("Quire-Webhook-Id") == "" || req.Method != http.MethodPost:
		return "no Quire-Webhook-Id, or not a POST"
	}
	return ""
}

func (r *receiver) snapshot() (attempts, acked, bad []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.attempts...), append([]string(nil), r.acked...), append([]string(nil), r.bad...)
}

// fastWebhooks are delivery timings that make minutes into milliseconds.
var fastWebhooks = service.WebhookOptions{MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond,
	Timeout: 300 * time.Millisecond, Poll: 50 * time.Millisecond, Lease: 2 * time.Second, RetryFor: time.Hour}

// startDeliveries runs a webhook worker over st, as a server's would; the returned stop ends
// it and waits until it has.
func startDeliveries(t testing.TB, st *store.Store, o service.WebhookOptions) (stop func()) {
	svc := service.New(st, service.Options{Webhooks: o})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		service.NewWebhookWorker(svc, EventJSON, slog.New(slog.DiscardHandler)).Run(ctx)
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

// hook creates a webhook to the receiver and gives it the secret.
func (e *env) hook(t testing.TB, r *receiver) string {
	created := e.mkWebhook(t, r.srv.URL+"/hook")
	r.secret = created["secret"].(string)
	return created["id"].(string)
}

// eventIDs are the ids of the workspace's whole feed, in order.
func (e *env) eventIDs(t testing.TB) []string {
	evs, _ := e.feed(t, e.full, "", "", 100)
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev["id"].(string)
	}
	return out
}

// waitFor polls cond until it holds, failing the test after 15 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// checkDelivered waits until every event of want was acknowledged and checks the contract:
// each at least once, signatures good, in order (no event tried before the one before it was
// acknowledged).
func checkDelivered(t testing.TB, r *receiver, want []string) {
	t.Helper()
	waitFor(t, "every event acknowledged", func() bool {
		_, acked, _ := r.snapshot()
		return len(acked) >= len(want)
	})
	attempts, acked, bad := r.snapshot()
	if len(bad) > 0 {
		t.Fatalf("bad deliveries: %v", bad)
	}
	index := map[string]int{}
	for i, id := range want {
		index[id] = i
	}
	done := -1 // the last event acknowledged, by its index in want
	ackedSoFar := map[string]bool{}
	ai := 0
	for _, id := range attempts {
		i, ok := index[id]
		if !ok {
			t.Fatalf("delivered event %s is not in the feed", id)
		}
		if i > done+1 {
			t.Fatalf("event %d delivered before event %d was acknowledged; attempts %v", i, done+1, attempts)
		}
		if ai < len(acked) && acked[ai] == id && !ackedSoFar[id] {
			ackedSoFar[id] = true
			done = max(done, i)
			ai++
		}
	}
	if len(ackedSoFar) != len(want) {
		t.Fatalf("acknowledged %d distinct events, want %d", len(ackedSoFar), len(want))
	}
}

// deliveries reads GET /v2/webhooks/{id}/deliveries.
func (e *env) deliveries(t testing.TB, id string) []map[string]any {
	r := e.do(http.MethodGet, "/v2/webhooks/"+id+"/deliveries", e.full, nil)
	wantOK(t, r, http.StatusOK)
	return objects(r.body["results"])
}

// TestWebhooks_RetriesInOrder: a receiver that fails its first tries gets every event, in
// order, though two servers deliver at once.
func TestWebhooks_RetriesInOrder(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		r := newReceiver(t, func(n int) (int, time.Duration) {
			if n < 3 || n == 5 {
				return http.StatusInternalServerError, 0
			}
			return http.StatusNoContent, 0
		})
		id := e.hook(t, r)
		startDeliveries(t, st, fastWebhooks)
		startDeliveries(t, st, fastWebhooks) // a second server on the same store
		for i := range 6 {
			e.mkPage(t, e.full, wsParent, "Page "+strconv.Itoa(i))
		}
		want := e.eventIDs(t)
		checkDelivered(t, r, want)
		// The receiver has answered the last event before the deliverer records the attempt:
		// wait for the records rather than read them once.
		var ds []map[string]any
		waitFor(t, "every attempt recorded", func() bool {
			ds = e.deliveries(t, id)
			return len(ds) >= len(want)+4 && ds[0]["succeeded"] == true
		})
		if ds[0]["status_code"] != float64(204) {
			t.Fatalf("deliveries (newest first): %v", ds)
		}
		failed := 0
		for _, d := range ds {
			if d["status_code"] == float64(500) && d["succeeded"] == false && d["error"] != "" {
				failed++
			}
		}
		if failed != 4 {
			t.Fatalf("deliveries show %d refused attempts, want 4: %v", failed, ds)
		}
	})
}

// TestWebhooks_SlowReceiver: an answer later than the timeout is a failure, retried.
func TestWebhooks_SlowReceiver(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		r := newReceiver(t, func(n int) (int, time.Duration) {
			if n < 2 {
				return http.StatusOK, time.Second // past the 300 ms timeout
			}
			return http.StatusOK, 0
		})
		id := e.hook(t, r)
		startDeliveries(t, st, fastWebhooks)
		e.mkPage(t, e.full, wsParent, "Slow")
		e.mkPage(t, e.full, wsParent, "Slower")
		checkDelivered(t, r, e.eventIDs(t))
		timedOut := 0
		for _, d := range e.deliveries(t, id) {
			if d["status_code"] == nil && d["succeeded"] == false {
				timedOut++
			}
		}
		if timedOut != 2 {
			t.Fatalf("%d attempts without an answer, want 2", timedOut)
		}
	})
}

// TestWebhooks_ReceiverDown: events made while the receiver is down arrive once it is back.
func TestWebhooks_ReceiverDown(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		r := newReceiver(t, func(int) (int, time.Duration) { return http.StatusOK, 0 })
		addr := r.srv.Listener.Addr().String()
		id := e.hook(t, r)
		r.srv.Listener.Close() // down: connections are refused
		startDeliveries(t, st, fastWebhooks)
		for i := range 3 {
			e.mkPage(t, e.full, wsParent, "While down "+strconv.Itoa(i))
		}
		waitFor(t, "a refused attempt", func() bool { return len(e.deliveries(t, id)) >= 2 })
		r.up(t, addr)
		e.mkPage(t, e.full, wsParent, "Back up")
		checkDelivered(t, r, e.eventIDs(t))
	})
}

// up serves the receiver again on addr, where it listened before going down.
func (r *receiver) up(t testing.TB, addr string) {
	t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the closed port may linger a moment
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("listen again on %s: %v", addr, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(r.serve)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
}
