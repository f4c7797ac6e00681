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
	answer := any(&theBareAnswer)
	if cfg.scenario == scenarioSpeed {
		answer = thePageAnswer
	}
	bare, err := startBare(answer)
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
		err := r.engine(ctx, eng, pg, res)
		if pg != nil {
			pg.stop()
		}
		if err != nil {
			if ctx.Err() != nil {
				return errors.New("interrupted; what was measured before is in --save's file, if given")
			}
			return err
		}
	}
	return finish(cfg, res, stdout)
}

// engine runs the scenario on one engine: each store size, or the speed table; the results
// are saved after each, when --save asks.
func (r *runner) engine(ctx context.Context, eng string, pg *postgresServer, res *results) error {
	if r.cfg.scenario == scenarioSpeed {
		set, err := r.speed(ctx, eng, pg, sizeAt(r.cfg.scale))
		if errors.Is(err, errKept) {
			fmt.Fprintf(r.stderr, "  the store is kept in %s, its requests in speed-seed.json there\n", r.cfg.keepStore)
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s, speed: %w", eng, err)
		}
		res.Speed = append(res.Speed, *set)
		return r.save(res)
	}
	for _, blocks := range r.cfg.blocks {
		set, err := r.size(ctx, eng, pg, blocks)
		if err != nil {
			return fmt.Errorf("%s, %d blocks: %w", eng, blocks, err)
		}
		res.Sets = append(res.Sets, *set)
		if err := r.save(res); err != nil {
			return err
		}
	}
	return nil
}

// save writes res to --save's file, if given.
func (r *runner) save(res *results) error {
	if r.cfg.save == "" {
		return nil
	}
	return res.save(r.cfg.save)
}

// finish prints the report and draws the plot, if asked for.
func finish(cfg config, res *results, stdout io.Writer) error {
	if len(res.Speed) > 0 {
		printSpeedReport(stdout, res)
		if len(res.Sets) == 0 {
			return nil
		}
	}
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
