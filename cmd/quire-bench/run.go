package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/quire-dev/quire/internal/store"
)

// runner measures one store size after another.
type runner struct {
	cfg    config
	bin    string // the quire binary
	dir    string // temporary folder
	bare   string // the bare handler's base URL
	loader loader
	stderr io.Writer
	seq    int
}

// size seeds a fresh store of blocks blocks on engine eng, serves it, waits for the indexer,
// measures every endpoint against the bare handler, and removes the store.
func (r *runner) size(ctx context.Context, eng string, pg *postgresServer, blocks int) (*sizeSet, error) {
	fs, err := r.fresh(ctx, eng, pg)
	if err != nil {
		return nil, err
	}
	defer fs.remove()
	fmt.Fprintf(r.stderr, "%s, %d blocks: seeding …\n", engineTitles[eng], blocks)
	sd, err := seedStore(ctx, fs.cfg, blocks, r.cfg.embedPages, r.stderr)
	if err != nil {
		return nil, err
	}
	if err := analyze(ctx, fs.cfg); err != nil {
		return nil, err
	}
	fmt.Fprintf(r.stderr, "  seeded in %.0f s; starting quire serve\n", sd.SeedSecs)
	start := time.Now()
	sv, err := r.serve(ctx, fs, sd.Token)
	if err != nil {
		return nil, err
	}
	defer sv.stop()
	q, poll, died := sv.q, sv.poll, sv.died
	set := &sizeSet{Engine: eng, Blocks: blocks, Seed: *sd}
	if err := waitIndexed(ctx, poll, q.exited, r.stderr, start); err != nil {
		return nil, died(err)
	}
	set.DrainSecs = time.Since(start).Seconds()
	if set.Chunks, err = poll.EmbeddingCount(ctx); err != nil {
		return nil, err
	}
	cursors, err := collectCursors(ctx, q.url, sd)
	if err != nil {
		return nil, died(err)
	}
	var eps []endpoint
	for _, name := range r.cfg.endpoints {
		if blocks == 0 && name != "me" {
			continue // an empty workspace has nothing else to measure
		}
		eps = append(eps, buildEndpoint(name, sd, cursors))
	}
	if err := r.prepareLoader(eps, sd.Token); err != nil {
		return nil, err
	}
	set.Load = loadAverage()
	fmt.Fprintf(r.stderr, "  quire at %s, bare handler at %s; %d chunks embedded; about %s of measuring …\n",
		q.url, r.bare, set.Chunks, estimate(r.cfg, len(eps)).Round(time.Second))
	m := &measurer{cfg: r.cfg, loader: r.loader, urls: [2]string{q.url, r.bare}, stderr: r.stderr,
		drain: func() error { return waitIndexed(ctx, poll, q.exited, io.Discard, time.Now()) }}
	if set.Rows, err = m.measure(ctx, eps); err != nil {
		return nil, died(err)
	}
	set.LoadAfter = loadAverage()
	return set, nil
}

// fresh is an empty store on engine eng for the next run.
func (r *runner) fresh(ctx context.Context, eng string, pg *postgresServer) (*freshStore, error) {
	r.seq++
	if eng == enginePostgres {
		return pg.fresh(ctx)
	}
	return freshSQLite(r.dir, r.seq)
}

// served is a running quire serve, a store handle beside it for reading the indexer's queue,
// and died, which wraps an error with why the server ended, or the end of its log.
type served struct {
	q     *quireServer
	poll  *store.Store
	watch *pgWatch // PostgreSQL: what the database does around each measured run
	died  func(error) error
}

// serve starts quire serve on fs and waits until it and the bare handler answer; stop must be
// called when done.
func (r *runner) serve(ctx context.Context, fs *freshStore, token string) (_ *served, err error) {
	args := fs.serveArgs(r.dir)
	if r.cfg.pprof != "" {
		args = append(args, "--pprof", r.cfg.pprof)
	}
	q, err := startQuire(ctx, r.bin, args, r.cfg.logLevel)
	sv := &served{q: q}
	defer func() {
		if err != nil {
			sv.stop()
		}
	}()
	if err != nil {
		return nil, err
	}
	sv.died = func(err error) error {
		if isClosed(q.exited) {
			return q.diedError()
		}
		return fmt.Errorf("%w\nquire serve's log ends with:\n%s", err, q.stderr)
	}
	if err := waitReady(ctx, q.url+mePath, token, q.exited); err != nil {
		return nil, sv.died(fmt.Errorf("quire: %w", err))
	}
	if err := waitReady(ctx, r.bare+mePath, token, nil); err != nil {
		return nil, fmt.Errorf("bare handler: %w", err)
	}
	if sv.poll, err = store.Open(ctx, fs.cfg); err != nil {
		return nil, err
	}
	if fs.cfg.DatabaseURL != "" {
		if sv.watch, err = newPGWatch(ctx, fs.cfg.DatabaseURL, q.cmd.Process.Pid, r.stderr); err != nil {
			return nil, err
		}
	}
	return sv, nil
}

// stop closes the store handle and stops the server.
func (sv *served) stop() {
	if sv.watch != nil {
		sv.watch.close()
		sv.watch = nil
	}
	if sv.poll != nil {
		sv.poll.Close()
	}
	if sv.q != nil {
		sv.q.stop()
	}
}

// prepareLoader writes wrk's scripts (the built-in generator only needs the token).
func (r *runner) prepareLoader(eps []endpoint, token string) error {
	switch l := r.loader.(type) {
	case *goLoader:
		l.token = token
	case *wrkLoader:
		l.scripts = map[string]string{}
		for _, e := range eps {
			path, err := writeScript(r.dir, e, token)
			if err != nil {
				return err
			}
			l.scripts[e.name] = path
		}
	}
	return nil
}

// measurer runs the rounds of one store size.
type measurer struct {
	cfg    config
	loader loader
	urls   [2]string // quire, bare
	drain  func() error
	queue  func() (int64, error) // with it, the queue's length is recorded around each quire run
	stderr io.Writer
	first  int      // the number of the first round, when these rounds follow others (0: 1)
	watch  *pgWatch // with it, each quire run's database activity is recorded in its row's DB
}

// measure warms each endpoint up on both servers, then runs the interleaved rounds: in each
// round, for each endpoint and concurrency, quire and the bare handler run back to back, and
// which goes first alternates from round to round so that a drift of the machine's speed
// favours neither. After quire has run a write, the indexer's queue is let empty before
// anything else runs, so that embedding the appended text does not slow the next run.
func (m *measurer) measure(ctx context.Context, eps []endpoint) ([]row, error) {
	pending := false
	var watched *dbRound
	run := func(e endpoint, i, conns int, d time.Duration, label string) (res wrkResult, err error) {
		if pending {
			if err := m.drain(); err != nil {
				return wrkResult{}, err
			}
		}
		watched = nil
		if m.watch != nil && i == 0 && label != "" {
			watched, err = m.watch.watched(ctx, label, func() (int64, error) {
				res, err = m.loader.load(ctx, m.urls[i], e, conns, d)
				return res.requests, err
			})
		} else {
			res, err = m.loader.load(ctx, m.urls[i], e, conns, d)
		}
		if errors.Is(err, errNoneFinished) {
			// Recorded as nothing served (0 req/s), not a failure of the whole run.
			fmt.Fprintf(m.stderr, "  warning: %s c=%d on %s: %v\n", e.name, conns, m.urls[i], err)
			err = nil
		}
		if err != nil {
			return res, err
		}
		if res.sockErrs != "" {
			fmt.Fprintf(m.stderr, "  warning: %s c=%d: %s\n", e.name, conns, res.sockErrs)
		}
		// After quire has run a write, the indexer's queue is let empty before the next run (not
		// after the last, where --scenario speed goes on to measure while it indexes).
		pending = e.grows && i == 0
		return res, err
	}
	if m.cfg.warmup > 0 {
		for _, e := range eps {
			for i := range m.urls {
				if _, err := run(e, i, slices.Max(m.cfg.conns), m.cfg.warmup, ""); err != nil {
					return nil, err
				}
			}
		}
	}
	rows := make([]row, 0, len(eps)*len(m.cfg.conns))
	for _, e := range eps {
		for _, c := range m.cfg.conns {
			rows = append(rows, row{Endpoint: e.name, Conns: c})
		}
	}
	first := max(1, m.first)
	last := first + m.cfg.rounds - 1
	for round := first; round <= last; round++ {
		if last > 1 {
			fmt.Fprintf(m.stderr, "  round %d/%d\n", round, last)
		}
		k := 0
		for _, e := range eps {
			for _, c := range m.cfg.conns {
				order := []int{0, 1}
				if round%2 == 0 {
					order = []int{1, 0}
				}
				var res [2]wrkResult
				for _, i := range order {
					var err error
					if i == 0 && m.queue != nil {
						if err = m.recordQueue(&rows[k].QueueBefore); err != nil {
							return nil, err
						}
					}
					if res[i], err = run(e, i, c, m.cfg.duration, fmt.Sprintf("%s c=%d round %d", e.name, c, round)); err != nil {
						return nil, err
					}
					if i == 0 && m.watch != nil {
						rows[k].DB = append(rows[k].DB, watched)
						printRound(m.stderr, watched, fmt.Sprintf("p50 %.2f ms, ", float64(res[0].p50)/float64(time.Millisecond)))
					}
					if i == 0 && m.queue != nil {
						if err = m.recordQueue(&rows[k].QueueAfter); err != nil {
							return nil, err
						}
					}
					if m.cfg.verbose {
						logRun(m.stderr, round, e.name, c, [2]string{"quire", "bare"}[i], res[i])
					}
				}
				rows[k].Quire = append(rows[k].Quire, figOf(res[0]))
				rows[k].Bare = append(rows[k].Bare, figOf(res[1]))
				k++
			}
		}
	}
	return rows, nil
}

// recordQueue appends the indexer's queue length to into.
func (m *measurer) recordQueue(into *[]int64) error {
	n, err := m.queue()
	*into = append(*into, n)
	return err
}
