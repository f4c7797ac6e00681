package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// FuzzServer sends requests generated from its input bytes (fuzzgen_test.go: which template,
// which mutations of path, query, headers and body) to the real handler over a real SQLite
// store. Every answer is checked as in TestServerProperty.
//
//	go test ./internal/httpapi -run '^$' -fuzz '^FuzzServer$' -fuzztime 10m
func FuzzServer(f *testing.F) {
	w := newFuzzWorld(f, testdb.SQLite(f))
	home := w.e.mkPage(f, w.e.full, wsParent, "Home")
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &byteChooser{data: data}
		for n := 1 + c.intn(3); n > 0; n-- {
			if err := w.step(t, c, false, nil); err != nil {
				t.Fatal(err)
			}
		}
		// The server still answers a plain read.
		if r := w.serve(http.MethodGet, "/v2/pages/"+home, w.e.full); r.status != 200 {
			t.Fatalf("GET of a page after the requests: %d %s", r.status, r.raw)
		}
	})
}

// TestServerProperty sends 1,500 generated requests (50,000 with QUIRE_LONG=1) from a fixed
// seed over real HTTP to the server on each engine: no answer is a 5xx, every error is the
// specification's body with the status of its code, no refused or replayed write changes the
// store, and afterwards the store still takes and returns a write.
func TestServerProperty(t *testing.T) {
	n := 1500
	if os.Getenv("QUIRE_LONG") == "1" {
		n = 50000
	}
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		w := newFuzzWorld(t, st)
		c := randChooser{rand.New(rand.NewPCG(7, uint64(n)))}
		stats := map[int]int{}
		seen := map[string]bool{} // one report per problem and route
		for range n {
			if err := w.step(t, c, true, stats); err != nil {
				key := strings.SplitN(err.Error(), "\n", 2)[0]
				if !seen[key] && len(seen) < 20 {
					t.Error(err)
				}
				seen[key] = true
			}
		}
		t.Logf("%d requests, answers by status: %v", n, stats)
		// The generator must reach past the token and the validation: a run of 401s proves little.
		for _, status := range []int{200, 400, 401, 403, 404, 405, 409, 413} {
			if stats[status] == 0 {
				t.Errorf("no answer was %d: the generator does not reach it", status)
			}
		}
		if ok := stats[200]; ok < n/10 {
			t.Errorf("only %d of %d answers were 200", ok, n)
		}
		w.stillWorks(t)
	})
}

// step generates, sends and checks one request; it returns what the answer breaks.
func (w *fuzzWorld) step(t testing.TB, c chooser, viaHTTP bool, stats map[int]int) error {
	t.Helper()
	q := w.generate(c)
	write := q.method == http.MethodPost || q.method == http.MethodPatch || q.method == http.MethodPut || q.method == http.MethodDelete
	var before storeFingerprint
	if write {
		before = w.fingerprint(t)
	}
	w.logMu.Lock()
	w.logs.Reset()
	w.logMu.Unlock()
	r, err := w.send(q, viaHTTP)
	if errors.Is(err, errUnsendable) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%v\nrequest:\n%s", err, q)
	}
	w.logMu.Lock()
	logs := w.logs.String()
	w.logMu.Unlock()
	problem := checkAnswer(q, r)
	if problem == nil && logs != "" {
		problem = errors.New("the server logged an error")
	}
	if problem == nil && write && (r.status >= 400 || r.header.Get("Idempotent-Replayed") == "true") {
		if after := w.fingerprint(t); after != before {
			problem = fmt.Errorf("a refused or replayed write changed the store: %v → %v", before, after)
		}
	}
	if stats != nil {
		stats[r.status]++
	}
	if problem != nil {
		return fmt.Errorf("%s: %v\nrequest:\n%s\nanswer: %d %s\nserver log:\n%s", w.routes[q.route].key, problem, q, r.status,
			clip(string(r.raw), 2000), logs)
	}
	return nil
}

// errUnsendable marks a generated request no client could send (a URL that does not parse).
var errUnsendable = errors.New("not a request")

func (w *fuzzWorld) send(q *fuzzReq, viaHTTP bool) (*response, error) {
	if q.header.Get("If-Match") == "@current" {
		q.header.Set("If-Match", w.currentETag(q))
	}
	base := "http://quire.test"
	if viaHTTP {
		base = w.e.srv.URL
	}
	req, err := http.NewRequest(q.method, base+q.target(), bytes.NewReader(q.body))
	if err != nil {
		return nil, errUnsendable
	}
	req.Header = q.header.Clone()
	if !viaHTTP {
		rec := httptest.NewRecorder()
		w.e.srv.Config.Handler.ServeHTTP(rec, req)
		return &response{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes()}, nil
	}
	client := *w.e.srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	r := &response{status: res.StatusCode, header: res.Header}
	r.raw, err = io.ReadAll(res.Body)
	return r, err
}

// serve answers a GET through the handler directly.
func (w *fuzzWorld) serve(method, target, token string) *response {
	req := httptest.NewRequest(method, target, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	w.e.srv.Config.Handler.ServeHTTP(rec, req)
	return &response{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes()}
}

// currentETag is the ETag of the resource the request names (its path, or one or two segments
// shorter: /move, /children), or a version that is surely stale when none answers.
func (w *fuzzWorld) currentETag(q *fuzzReq) string {
	for n := len(q.segs); n >= 3 && n >= len(q.segs)-2; n-- {
		target := (&fuzzReq{segs: q.segs[:n]}).target()
		req, err := http.NewRequest(http.MethodGet, "http://quire.test"+target, nil)
		if err != nil {
			break
		}
		req.Header.Set("Authorization", q.header.Get("Authorization"))
		rec := httptest.NewRecorder()
		w.e.srv.Config.Handler.ServeHTTP(rec, req)
		if et := rec.Header().Get("ETag"); rec.Code == 200 && et != "" {
			return et
		}
	}
	return `W/"1"`
}

// codeStatus is the contract's table (§3) of codes and their statuses, with the upload's 415
// and the original service's unsupported_* codes (docs/api.md).
var codeStatus = map[string]int{
	quire.CodeInvalidJSON: 400, quire.CodeValidation: 400, quire.CodeUnauthorized: 401, quire.CodeForbidden: 403,
	quire.CodeUnsupportedFilter: 400, quire.CodeUnsupportedSort: 400, quire.CodeUnsupportedBlockType: 400,
	quire.CodeNotFound: 404, quire.CodeMethodNotAllowed: 405, quire.CodeConflict: 409, quire.CodeIdempotencyConflict: 409,
	quire.CodePayloadTooLarge: 413, quire.CodeUnsupportedMedia: 415, quire.CodeRateLimited: 429,
}

// detailReasons are the contract's reasons (§3).
var detailReasons = []string{quire.ReasonRequired, quire.ReasonInvalidType, quire.ReasonInvalidValue, quire.ReasonUnknownField,
	quire.ReasonTooLong, quire.ReasonTooMany, quire.ReasonOutOfRange, quire.ReasonImmutable, quire.ReasonArchived,
	quire.ReasonCycle, quire.ReasonAmbiguous}

// checkAnswer reports how r breaks the contract: a 5xx, an error body not in the
// specification's shape or with a status other than its code's, a success that is not JSON.
func checkAnswer(q *fuzzReq, r *response) error {
	if r.status >= 500 {
		return fmt.Errorf("answered %d", r.status)
	}
	if r.status == http.StatusRequestEntityTooLarge && len(q.body) <= maxBody {
		return fmt.Errorf("413 for a body of %d bytes: only a body over 1 MiB is too large", len(q.body))
	}
	if r.header.Get("X-Request-Id") == "" {
		return errors.New("no X-Request-Id")
	}
	if q.method == http.MethodHead || r.status/100 == 3 {
		return nil
	}
	if r.status < 400 {
		if len(r.raw) == 0 {
			return nil
		}
		// An event stream's messages are checked against the document by TestOpenAPIConformance.
		if ct := r.header.Get("Content-Type"); ct != "text/event-stream" && (!strings.HasPrefix(ct, "application/json") || !json.Valid(r.raw)) {
			return fmt.Errorf("a %d answer that is not JSON (Content-Type %q)", r.status, ct)
		}
		if len(q.body) > maxBody && q.method != http.MethodGet && q.method != http.MethodDelete {
			return fmt.Errorf("a body of %d bytes answered %d", len(q.body), r.status)
		}
		if rest := bytes.TrimSpace(q.body); len(rest) > 0 && rest[0] != '{' && q.method != http.MethodGet && q.method != http.MethodDelete {
			return fmt.Errorf("a body that is no JSON object answered %d", r.status)
		}
		return nil
	}
	if err := json.Unmarshal(r.raw, &r.body); err != nil {
		return fmt.Errorf("the error body is not JSON: %v", err)
	}
	if err := errorShape(r); err != nil {
		return err
	}
	code := r.body["code"].(string)
	if want, ok := codeStatus[code]; !ok || want != r.status {
		return fmt.Errorf("code %q with status %d; the contract gives it %d", code, r.status, want)
	}
	details := r.body["details"].([]any)
	if code == quire.CodeValidation && len(details) == 0 {
		return errors.New("a validation_error names no failing path")
	}
	seen := map[string]bool{}
	for _, d := range details {
		m := d.(map[string]any)
		key := fmt.Sprint(m["path"], "\x00", m["reason"])
		if seen[key] {
			return fmt.Errorf("detail %v listed twice", m)
		}
		seen[key] = true
		path, _ := m["path"].(string)
		reason, _ := m["reason"].(string)
		// Only an unknown field may have the empty name: {"": 1}, ?=1.
		if (path == "" && reason != quire.ReasonUnknownField) || !slices.Contains(detailReasons, reason) {
			return fmt.Errorf("detail %v: want a path and one of the contract's reasons", m)
		}
	}
	if r.status == 429 && r.header.Get("Retry-After") == "" {
		return errors.New("429 without Retry-After")
	}
	if r.status == 405 && r.header.Get("Allow") == "" {
		return errors.New("405 without Allow") // RFC 9110 §15.5.6
	}
	if r.status == 401 && r.header.Get("WWW-Authenticate") == "" {
		return errors.New("401 without WWW-Authenticate") // RFC 9110 §15.5.2
	}
	return nil
}

// storeFingerprint sums up every content table: a write that changes a row changes it.
type storeFingerprint [14]int64

func (w *fuzzWorld) fingerprint(t testing.TB) storeFingerprint {
	t.Helper()
	var fp storeFingerprint
	ctx := context.Background()
	err := w.e.store.InTx(ctx, func(tx *store.Tx) error {
		return tx.QueryRowForTest(ctx, `SELECT
			(SELECT COUNT(*) FROM nodes), (SELECT CAST(COALESCE(SUM(version), 0) AS BIGINT) FROM nodes),
			(SELECT COALESCE(MAX(edited_ms), 0) FROM nodes),
			(SELECT COUNT(*) FROM blocks), (SELECT CAST(COALESCE(SUM(version), 0) AS BIGINT) FROM blocks),
			(SELECT COALESCE(MAX(edited_ms), 0) FROM blocks),
			(SELECT COUNT(*) FROM views), (SELECT CAST(COALESCE(SUM(version), 0) AS BIGINT) FROM views),
			(SELECT COUNT(*) FROM record_values), (SELECT COUNT(*) FROM mind_map_nodes),
			(SELECT CAST(COALESCE(SUM(node_count), 0) AS BIGINT) FROM mind_maps),
			(SELECT COUNT(*) FROM files), (SELECT COUNT(*) FROM file_uses), (SELECT COUNT(*) FROM users)`).Scan(
			&fp[0], &fp[1], &fp[2], &fp[3], &fp[4], &fp[5], &fp[6], &fp[7], &fp[8], &fp[9], &fp[10], &fp[11], &fp[12], &fp[13])
	})
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// stillWorks writes a page with a block through the API after the run and reads both back.
func (w *fuzzWorld) stillWorks(t *testing.T) {
	e := w.e
	page := e.mkPage(t, e.full, wsParent, "After the run")
	kids := e.appendKids(t, page, para("still here"))
	r := e.do(http.MethodGet, "/v2/blocks/"+page+"/children", e.full, nil)
	got := objects(r.body["results"])
	if r.status != 200 || len(got) != 1 || got[0]["id"] != kids[0]["id"] {
		t.Fatalf("children after the run: %d %s", r.status, r.raw)
	}
	if r := e.do(http.MethodGet, "/v2/pages/"+page, e.full, nil); r.status != 200 || r.body["id"] != page {
		t.Fatalf("page after the run: %d %s", r.status, r.raw)
	}
}
