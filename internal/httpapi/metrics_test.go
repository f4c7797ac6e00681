package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// scrape is one answer of GET /metrics, read with Prometheus's own text parser.
type scrape map[string]*dto.MetricFamily

func (e *env) scrape(t *testing.T) scrape {
	t.Helper()
	res, err := e.srv.Client().Get(e.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("GET /metrics: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("GET /metrics is not the text format: %v", err)
	}
	return fams
}

// metric is the series of family name with every label of labels ("name", "value" pairs), or nil.
func (s scrape) metric(name string, labels ...string) *dto.Metric {
	f := s[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, lp := range m.Label {
				found = found || lp.GetName() == labels[i] && lp.GetValue() == labels[i+1]
			}
			if !found {
				continue next
			}
		}
		return m
	}
	return nil
}

// counter is a counter's value, 0 when the series does not exist yet.
func (s scrape) counter(name string, labels ...string) float64 {
	return s.metric(name, labels...).GetCounter().GetValue()
}

// requests is how many requests of route were answered with code, and how many the latency
// histogram saw.
func (s scrape) requests(route string, code int) (count float64, observed uint64) {
	l := []string{"route", route, "code", fmt.Sprint(code)}
	return s.counter("quire_http_requests_total", l...),
		s.metric("quire_http_request_duration_seconds", l...).GetHistogram().GetSampleCount()
}

// routes lists the route label values of the request counter.
func (s scrape) routes() map[string]bool {
	out := map[string]bool{}
	for _, m := range s["quire_http_requests_total"].GetMetric() {
		for _, lp := range m.Label {
			if lp.GetName() == "route" {
				out[lp.GetValue()] = true
			}
		}
	}
	return out
}

func TestMetrics_Requests(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		noScopes := e.token(nil, true)
		page := e.mkPage(t, e.full, wsParent, "Counted")
		before := e.scrape(t)

		for range 3 {
			wantOK(t, e.do(http.MethodGet, "/v2/users/me", e.full, nil), 200)
		}
		wantOK(t, e.do(http.MethodGet, "/v2/pages/"+page, e.full, nil), 200)
		e.do(http.MethodGet, "/v2/pages/"+quire.NewID(), e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodGet, "/v2/pages/"+quire.NewID(), e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodGet, "/v2/pages/"+page, noScopes, nil).wantError(t, 403, quire.CodeForbidden, "")
		e.do(http.MethodGet, "/v2/users/me", "", nil).wantError(t, 401, quire.CodeUnauthorized, "")
		e.do(http.MethodPatch, "/v2/pages/"+page, e.full, `{"properties":`).wantError(t, 400, quire.CodeInvalidJSON, "")
		// Paths no route knows share one label, whatever they are.
		for i := range 5 {
			e.do(http.MethodGet, fmt.Sprintf("/v2/no-such-thing/%d", i), e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		}
		e.do(http.MethodGet, "/"+quire.NewID(), "", nil).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodPost, "/healthz", "", nil).wantError(t, 405, quire.CodeMethodNotAllowed, "")
		after := e.scrape(t)

		for _, c := range []struct {
			route string
			code  int
			want  float64
		}{
			{"GET /v2/users/me", 200, 3},
			{"GET /v2/users/me", 401, 1},
			{"GET /v2/pages/{page_id}", 200, 1},
			{"GET /v2/pages/{page_id}", 404, 2},
			{"GET /v2/pages/{page_id}", 403, 1},
			{"PATCH /v2/pages/{page_id}", 400, 1},
			{"unmatched", 404, 6},
			{"unmatched", 405, 1},
			{"GET /metrics", 200, 1}, // the first scrape, counted once it was answered
			{"POST /v2/pages", 201, 0},
		} {
			n0, h0 := before.requests(c.route, c.code)
			n1, h1 := after.requests(c.route, c.code)
			if n1-n0 != c.want || float64(h1-h0) != c.want {
				t.Errorf("%s %d: counter went up by %v and the histogram by %d, want %v", c.route, c.code, n1-n0, h1-h0, c.want)
			}
		}
		lat := after.metric("quire_http_request_duration_seconds", "route", "GET /v2/users/me", "code", "200").GetHistogram()
		if lat.GetSampleSum() <= 0 || lat.GetBucket()[len(lat.GetBucket())-1].GetCumulativeCount() != lat.GetSampleCount() {
			t.Errorf("latency histogram: sum %v, buckets %v, count %d", lat.GetSampleSum(), lat.GetBucket(), lat.GetSampleCount())
		}

		// Every route label is a registered pattern or "unmatched": raw paths never are.
		s := newServer(Config{Service: e.svc, Metrics: true})
		for route := range after.routes() {
			if !s.labels[route] && route != "unmatched" {
				t.Errorf("route label %q is not a route pattern", route)
			}
		}
		// An unclean path is not redirected: it answers 404 under "unmatched".
		e.do(http.MethodGet, "/v2//users/./me", e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		for i := range 20 {
			e.do(http.MethodGet, fmt.Sprintf("/v3/other/%d?x=%d", i, i), "", nil)
			e.do("PROPFIND", "/v2/pages/"+quire.NewID(), e.full, nil)
		}
		again := e.scrape(t)
		if n, _ := again.requests("GET /v2/users/me", http.StatusTemporaryRedirect); n != 0 {
			t.Errorf("an unclean path was redirected %v times under GET /v2/users/me, want 0", n)
		}
		if got, want := again.routes(), after.routes(); len(got) != len(want) {
			t.Errorf("40 requests to new paths changed the route labels from %v to %v", want, got)
		}
		n0, _ := after.requests("unmatched", 404)
		n1, _ := again.requests("unmatched", 404)
		m0, _ := after.requests("unmatched", 405)
		m1, _ := again.requests("unmatched", 405)
		if n1-n0 != 21 || m1-m0 != 20 {
			t.Errorf("unmatched 404 went up by %v and 405 by %v, want 21 (the unclean path and 20 others) and 20", n1-n0, m1-m0)
		}
	})
}

func TestMetrics_RateLimited(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st, envOptions{rateLimit: 2})
		before := e.scrape(t) // public: neither limited nor counted against a token
		limited := 0
		for range 8 {
			if r := e.do(http.MethodGet, "/v2/users/me", e.full, nil); r.status == 429 {
				limited++
			}
		}
		after := e.scrape(t)
		if limited == 0 {
			t.Fatal("8 requests at once were never limited at 2/s")
		}
		if got := after.counter("quire_rate_limited_requests_total") - before.counter("quire_rate_limited_requests_total"); got != float64(limited) {
			t.Errorf("rejections counter went up by %v, want %d", got, limited)
		}
		if n, _ := after.requests("GET /v2/users/me", 429); n != float64(limited) {
			t.Errorf("429s of GET /v2/users/me: %v, want %d", n, limited)
		}
		if n, _ := after.requests("GET /v2/users/me", 200); n != float64(8-limited) {
			t.Errorf("200s of GET /v2/users/me: %v, want %d", n, 8-limited)
		}
	})
}

// TestMetrics_NotInDocument: like the probes, /metrics describes the process, not the API.
func TestMetrics_NotInDocument(t *testing.T) {
	e := newEnv(t, testdb.SQLite(t))
	r := e.do(http.MethodGet, "/v2/openapi.json", "", nil)
	wantOK(t, r, 200)
	paths := r.body["paths"].(map[string]any)
	if len(paths) == 0 || paths["/metrics"] != nil || paths["/healthz"] != nil {
		t.Fatalf("document paths: %d, /metrics %v", len(paths), paths["/metrics"])
	}
	e.do(http.MethodPost, "/metrics", "", nil).wantError(t, 405, quire.CodeMethodNotAllowed, "")
}

func TestMetrics_Off(t *testing.T) {
	e := newEnv(t, testdb.SQLite(t), envOptions{metricsOff: true})
	e.do(http.MethodGet, "/metrics", "", nil).wantError(t, 404, quire.CodeNotFound, "")
	wantOK(t, e.do(http.MethodGet, "/v2/users/me", e.full, nil), 200)
}
