package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httputil"
	"slices"
	"strings"
	"sync"
	"time"
)

// loader runs one timed load of endpoint e against the server at base.
type loader interface {
	load(ctx context.Context, base string, e endpoint, conns int, d time.Duration) (wrkResult, error)
	name() string
}

// wrkLoader runs wrk with a Lua script per endpoint.
type wrkLoader struct {
	prog    string
	scripts map[string]string // endpoint name → script path
	version string
}

func (w *wrkLoader) name() string { return w.version }

func (w *wrkLoader) load(ctx context.Context, base string, e endpoint, conns int, d time.Duration) (wrkResult, error) {
	return wrkRun{prog: w.prog, url: base + "/", script: w.scripts[e.name], conns: conns, duration: d}.run(ctx)
}

// goLoader is the built-in generator, for machines without wrk (CI) and for runs shorter than
// a second: conns goroutines, each with its own keep-alive connection, send requests back to
// back and time each one, as wrk does. It costs more CPU per request than wrk, so its figures
// are lower; the ratio against the bare handler, measured the same way, is what compares.
type goLoader struct {
	token string
}

func (g *goLoader) name() string { return "built-in Go load generator" }

func (g *goLoader) load(ctx context.Context, base string, e endpoint, conns int, d time.Duration) (wrkResult, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type tally struct {
		lat   []time.Duration
		bytes float64
		bad   int64
		err   error
	}
	tallies := make([]tally, conns)
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for c := range conns {
		wg.Go(func() {
			t := &tallies[c]
			r := rand.New(rand.NewPCG(uint64(c), 9))
			for time.Now().Before(deadline) && ctx.Err() == nil {
				rq := e.reqs[r.IntN(len(e.reqs))]
				t0 := time.Now()
				n, status, err := g.do(ctx, client, base, rq)
				if err != nil {
					t.err = err
					cancel()
					return
				}
				t.lat = append(t.lat, time.Since(t0))
				t.bytes += float64(n)
				if status/100 != 2 && status/100 != 3 {
					t.bad++
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var res wrkResult
	var all []time.Duration
	for _, t := range tallies {
		if t.err != nil {
			return res, fmt.Errorf("%s: %w", e.label, t.err)
		}
		all = append(all, t.lat...)
		res.bytes += t.bytes
		res.non2xx += t.bad
	}
	if len(all) == 0 {
		return res, errNoneFinished
	}
	slices.Sort(all)
	res.requests = int64(len(all))
	res.rps = float64(len(all)) / elapsed.Seconds()
	res.p50, res.p99 = percentile(all, 0.50), percentile(all, 0.99)
	if res.non2xx > 0 {
		return res, fmt.Errorf("%s: %d answers were not 2xx/3xx", e.label, res.non2xx)
	}
	return res, nil
}

// do sends one request and reads the whole answer; n counts the answer's bytes with headers.
func (g *goLoader) do(ctx context.Context, client *http.Client, base string, rq request) (n int, status int, err error) {
	var body io.Reader
	if rq.Body != "" {
		body = strings.NewReader(rq.Body)
	}
	req, err := http.NewRequestWithContext(ctx, rq.Method, base+rq.Path, body)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+g.token)
	if rq.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer res.Body.Close()
	head, _ := httputil.DumpResponse(res, false)
	m, err := io.Copy(io.Discard, res.Body)
	return len(head) + int(m), res.StatusCode, err
}

// percentile is the nearest-rank percentile of sorted latencies.
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
