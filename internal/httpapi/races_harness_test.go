package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// The race tests (races_*_test.go) send many requests at once from many clients over real HTTP
// and then check what the store holds. Their short variant runs in CI; QUIRE_LONG=1 runs many
// more rounds (docs/reliability.md, "Races").

// TestRaces runs every race on each engine. The races share one store per engine, each in a
// workspace of its own: a fresh PostgreSQL database per race cost more CPU than the races (a
// new database's first connections, one per racing client, each build their catalog caches and
// prepare their statements).
func TestRaces(t *testing.T) {
	races := []struct {
		name string
		run  func(t *testing.T, st *store.Store)
	}{
		{"IfMatch", raceIfMatch},
		{"IdempotencyKey", raceIdempotencyKey},
		{"Moves", raceMoves},
		{"Appends", raceAppends},
		{"RecordsAndSchema", raceRecordsAndSchema},
		{"MindMapEdits", raceMindMapEdits},
		{"MixedTreeWrites", raceMixedTreeWrites},
	}
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		for _, r := range races {
			t.Run(r.name, func(t *testing.T) { r.run(t, st) })
		}
	})
}

// raceClients is how many clients race in each round: 16 in the short variant, which CI runs,
// and 32 in the long one.
var raceClients = raceRounds(16, 32)

// raceRounds is short rounds by default and long rounds when QUIRE_LONG=1.
func raceRounds(short, long int) int {
	if os.Getenv("QUIRE_LONG") == "1" {
		return long
	}
	return short
}

// racer sends requests from many goroutines at once. Unlike env.do it never calls t: a goroutine
// other than the test's may not stop the test, so every answer is kept and checked afterwards.
type racer struct {
	e      *env
	client *http.Client
	sent   atomic.Int64
}

// racer returns a client whose pool keeps a connection per racing client, so that rounds reuse
// connections instead of opening thousands.
func (e *env) racer() *racer {
	tr := e.srv.Client().Transport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2 * raceClients
	rc := &racer{e: e, client: &http.Client{Transport: tr}}
	start := time.Now()
	e.t.Cleanup(func() {
		tr.CloseIdleConnections()
		e.t.Logf("%d racing requests in %v", rc.sent.Load(), time.Since(start).Round(time.Millisecond))
	})
	return rc
}

// send is env.do for any goroutine: a transport failure comes back as an error.
func (r *racer) send(method, path string, body any, headers ...string) (*response, error) {
	var rd io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, r.e.srv.URL+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+r.e.full)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	r.sent.Add(1)
	res, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out := &response{status: res.StatusCode, header: res.Header}
	if out.raw, err = io.ReadAll(res.Body); err != nil {
		return nil, err
	}
	if len(out.raw) > 0 && out.raw[0] == '{' {
		if err := json.Unmarshal(out.raw, &out.body); err != nil {
			return nil, fmt.Errorf("%s %s: answer is not JSON: %v: %s", method, path, err, out.raw)
		}
	}
	return out, nil
}

// race runs fn(i) for i in [0, n) at once, released together, and waits for all of them.
func race(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}

// faults collects what goroutines found wrong; the test goroutine reports them.
type faults struct {
	mu   sync.Mutex
	list []string
}

func (f *faults) add(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.list = append(f.list, fmt.Sprintf(format, args...))
}

// check fails the test with the first faults found, if any.
func (f *faults) check(t testing.TB) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.list); n > 0 {
		shown := f.list[:min(n, 8)]
		t.Fatalf("%d faults under concurrency, first ones:\n%s", n, strings.Join(shown, "\n"))
	}
}

// answered records r (or err) of request what as a fault unless r.status is one of ok; a 5xx is
// never acceptable. It reports whether the answer was acceptable.
func (f *faults) answered(what string, r *response, err error, ok ...int) bool {
	if err != nil {
		f.add("%s: %v", what, err)
		return false
	}
	for _, s := range ok {
		if r.status == s {
			return true
		}
	}
	f.add("%s: status %d: %s", what, r.status, r.raw)
	return false
}

// plainText is the plain text of a rich-text array as the API answers it.
func plainText(v any) string {
	var sb strings.Builder
	items, _ := v.([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		s, _ := m["plain_text"].(string)
		sb.WriteString(s)
	}
	return sb.String()
}
