package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// mePath is the route of the users/me endpoint, also the readiness probe.
const mePath = "/v2/users/me"

// benchmark runs the whole benchmark: per engine and store size, seed, serve, measure; then
// the report (and the plot). With --from it only renders saved results.
func benchmark(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	if len(cfg.from) > 0 {
		res, err := loadResults(cfg.from)
		if err != nil {
			return err
		}
		return finish(cfg, res, stdout)
	}
	ld, err := newLoader(ctx, cfg)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "quire-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := cfg.quire
	if bin == "" {
		fmt.Fprintln(stderr, "building ./cmd/quire …")
		if bin, err = buildQuire(ctx, dir); err != nil {
			return err
		}
	}
	bare, err := startBare()
	if err != nil {
		return err
	}
	defer bare.stop()

	res := &results{Runs: []runInfo{{Start: time.Now(), Rounds: cfg.rounds, Duration: cfg.duration, Warmup: cfg.warmup,
		LogLevel: cfg.logLevel, Loader: ld.name(), CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}}}
	r := &runner{cfg: cfg, bin: bin, dir: dir, bare: bare.url, loader: ld, stderr: stderr}
	for _, eng := range cfg.engines {
		var pg *postgresServer
		if eng == enginePostgres {
			if pg, err = startPostgres(cfg.databaseURL, stderr); err != nil {
				return err
			}
		}
		for _, blocks := range cfg.blocks {
			set, err := r.size(ctx, eng, pg, blocks)
			if err != nil {
				if pg != nil {
					pg.stop()
				}
				if ctx.Err() != nil {
					return errors.New("interrupted; what was measured before is in --save's file, if given")
				}
				return fmt.Errorf("%s, %d blocks: %w", eng, blocks, err)
			}
			res.Sets = append(res.Sets, *set)
			if cfg.save != "" {
				if err := res.save(cfg.save); err != nil {
					return err
				}
			}
		}
		if pg != nil {
			pg.stop()
		}
	}
	return finish(cfg, res, stdout)
}

// finish prints the report and draws the plot, if asked for.
func finish(cfg config, res *results, stdout io.Writer) error {
	printReport(stdout, res)
	if cfg.plot == "" {
		return nil
	}
	return writePlot(cfg.plot, res)
}

// newLoader is wrk, or the built-in generator with --loadgen go.
func newLoader(ctx context.Context, cfg config) (loader, error) {
	if cfg.loadgen == "go" {
		return &goLoader{}, nil
	}
	if _, err := exec.LookPath(cfg.wrk); err != nil {
		return nil, fmt.Errorf("%s not found; install it (apt-get install -y wrk), pass --wrk, or use --loadgen go: %w", cfg.wrk, err)
	}
	return &wrkLoader{prog: cfg.wrk, version: wrkVersion(ctx, cfg.wrk)}, nil
}

// estimate is how long the measuring of one store size takes, without set-up and indexing.
func estimate(cfg config, endpoints int) time.Duration {
	runs := cfg.rounds * len(cfg.conns) * 2 * endpoints
	return time.Duration(runs)*cfg.duration + time.Duration(2*endpoints)*cfg.warmup
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
