package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// mePath is the measured route.
const mePath = "/v2/users/me"

// target is one server under test.
type target struct {
	name string
	url  string // base URL
}

// benchmark runs the whole benchmark: set up, measure, report, clean up.
func benchmark(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	if _, err := exec.LookPath(cfg.wrk); err != nil {
		return fmt.Errorf("%s not found; install it (apt-get install -y wrk) or pass --wrk: %w", cfg.wrk, err)
	}
	dir, err := os.MkdirTemp("", "quire-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	fmt.Fprintln(stderr, "building ./cmd/quire …")
	bin, err := buildQuire(ctx, dir)
	if err != nil {
		return err
	}
	store := storeArgs(cfg, dir)
	token, err := seed(ctx, bin, store)
	if err != nil {
		return err
	}
	auth := "Authorization: Bearer " + token

	q, err := startQuire(ctx, bin, store, cfg.logLevel)
	if q != nil {
		defer q.stop()
	}
	if err != nil {
		return err
	}
	bare, err := startBare()
	if err != nil {
		return err
	}
	defer bare.stop()

	info := runInfo{engine: engineName(cfg), wrk: wrkVersion(ctx, cfg.wrk), cpus: runtime.NumCPU(),
		goVersion: runtime.Version(), load: loadAverage()}
	if info.quireBytes, err = waitReady(ctx, q.url+mePath, token, q.exited); err != nil {
		if isClosed(q.exited) {
			return q.diedError()
		}
		return fmt.Errorf("quire: %w", err)
	}
	if info.bareBytes, err = waitReady(ctx, bare.url+mePath, token, nil); err != nil {
		return fmt.Errorf("bare handler: %w", err)
	}

	targets := [2]target{{"quire", q.url + mePath}, {"bare", bare.url + mePath}}
	fmt.Fprintf(stderr, "quire at %s, bare handler at %s; about %s of measuring …\n",
		q.url, bare.url, estimate(cfg).Round(time.Second))
	byConns, err := measure(ctx, cfg, targets, auth, stderr)
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("interrupted; nothing measured is reported")
		}
		if isClosed(q.exited) {
			return q.diedError()
		}
		return err
	}
	printReport(stdout, cfg, info, byConns)
	return nil
}

// measure warms both servers up, then runs the interleaved rounds. In each round, at each
// concurrency, quire and the bare handler run back to back; which goes first alternates from
// round to round, so that a drift of the machine's speed does not favour either.
func measure(ctx context.Context, cfg config, targets [2]target, auth string, stderr io.Writer) (map[int][]sample, error) {
	wrk := func(url string, conns int, d time.Duration) (wrkResult, error) {
		return wrkRun{prog: cfg.wrk, url: url, header: auth, conns: conns, duration: d}.run(ctx)
	}
	if cfg.warmup > 0 {
		for _, t := range targets {
			if _, err := wrk(t.url, slices.Max(cfg.conns), cfg.warmup); err != nil {
				return nil, err
			}
		}
	}
	byConns := map[int][]sample{}
	for round := 1; round <= cfg.rounds; round++ {
		fmt.Fprintf(stderr, "round %d/%d\n", round, cfg.rounds)
		for _, c := range cfg.conns {
			order := []int{0, 1}
			if round%2 == 0 {
				order = []int{1, 0}
			}
			var res [2]wrkResult
			for _, i := range order {
				r, err := wrk(targets[i].url, c, cfg.duration)
				if err != nil {
					return nil, err
				}
				if r.sockErrs != "" {
					fmt.Fprintf(stderr, "  warning: %s c=%d: %s\n", targets[i].name, c, r.sockErrs)
				}
				if cfg.verbose {
					logRun(stderr, round, c, targets[i].name, r)
				}
				res[i] = r
			}
			byConns[c] = append(byConns[c], sample{quire: res[0], bare: res[1]})
		}
	}
	return byConns, nil
}

// waitReady polls url until it answers 200 (at most 20 seconds, or until died is closed) and
// returns the size of the answer.
func waitReady(ctx context.Context, url, token string, died <-chan struct{}) (int, error) {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(20 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		n, err := fetch(ctx, client, url, token)
		if err == nil {
			return n, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-died:
			return 0, last
		case <-time.After(50 * time.Millisecond):
		}
	}
	return 0, fmt.Errorf("no 200 from %s within 20 s: %w", url, last)
}

// fetch makes one authenticated GET and returns the size of a 200 answer.
func fetch(ctx context.Context, client *http.Client, url, token string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, err
	}
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d: %s", res.StatusCode, body)
	}
	return len(body), nil
}

// estimate is how long the measuring takes, without set-up.
func estimate(cfg config) time.Duration {
	runs := cfg.rounds * len(cfg.conns) * 2
	return time.Duration(runs)*cfg.duration + 2*cfg.warmup
}

// engineName names the store quire runs on.
func engineName(cfg config) string {
	if cfg.databaseURL != "" {
		return "PostgreSQL"
	}
	return "SQLite"
}

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// loadAverage is the 1-minute load average from /proc/loadavg, "" where there is none. Other
// work on the machine shifts the figures; the report says how busy it was.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
