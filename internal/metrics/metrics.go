// Package metrics is the server's Prometheus exposition: requests by route and status, rate-limit
// rejections, the store's connection pools, the semantic index queue and indexer, the Go runtime
// and the process. It is the one package that imports the Prometheus client.
package metrics

import (
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/quire-dev/quire/internal/service"
)

// Unmatched is the route label of every request that no route matched (404, 405, redirects):
// raw paths never become labels, so the number of series stays bounded whatever clients send.
const Unmatched = "unmatched"

// latencyBuckets suit answers that mostly take a fraction of a millisecond to a few
// milliseconds (the client's defaults start at 5 ms), with room for slow searches.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Metrics holds one server's registry. Each server has its own rather than the client's global
// one, so that several servers in one process (tests) never collide.
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	limited  prometheus.Counter
	handler  http.Handler
	series   sync.Map // routeCode → *routeSeries
}

type routeCode struct {
	route string
	code  int
}

// routeSeries are one route and status's resolved children: a request then costs a map lookup
// and two atomic adds, not the label hashing of WithLabelValues.
type routeSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// New makes the registry of a server over svc; log receives scrape errors. version is the
// binary's, shown as quire_build_info's label.
func New(svc *service.Service, log *slog.Logger, version string) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "quire_http_requests_total",
		Help: "HTTP requests answered, by route pattern and status code.",
	}, []string{"route", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "quire_http_request_duration_seconds",
		Help:    "Time from a request's arrival in the handler to the end of its answer, by route pattern and status code.",
		Buckets: latencyBuckets,
	}, []string{"route", "code"})
	m.limited = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "quire_rate_limited_requests_total",
		Help: "Requests refused with 429 rate_limited because their token's bucket was empty.",
	})
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "quire_build_info",
		Help:        "Always 1; its labels name the running binary's version and the Go release that built it.",
		ConstLabels: prometheus.Labels{"version": version, "goversion": runtime.Version()},
	})
	build.Set(1)
	m.reg.MustRegister(m.requests, m.latency, m.limited, build,
		newStoreCollector(svc),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
	)
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// A metric that cannot be read (the store is down) leaves the others to be served.
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      m.reg, // counts its own errors in promhttp_metric_handler_errors_total
		// Scrapes need no token and each one counts the queue: a few at a time are plenty.
		MaxRequestsInFlight: 4,
	})
	return m
}

// Handler answers a scrape in the Prometheus text format (or another format the scraper asks
// for in Accept).
func (m *Metrics) Handler() http.Handler { return m.handler }

// ObserveRequest counts one answered request. route is the pattern that matched ("GET
// /v2/pages/{page_id}"), or "" when none did. A nil *Metrics (metrics off) does nothing.
func (m *Metrics) ObserveRequest(route string, code int, d time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = Unmatched
	}
	k := routeCode{route, code}
	v, ok := m.series.Load(k)
	if !ok {
		c := strconv.Itoa(code)
		v, _ = m.series.LoadOrStore(k, &routeSeries{count: m.requests.WithLabelValues(route, c), latency: m.latency.WithLabelValues(route, c)})
	}
	s := v.(*routeSeries)
	s.count.Inc()
	s.latency.Observe(d.Seconds())
}

// RateLimited counts one request refused by the rate limit. A nil *Metrics does nothing.
func (m *Metrics) RateLimited() {
	if m != nil {
		m.limited.Inc()
	}
}
