package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"
)

// The rows of the speed table that one run did not read reliably (docs/performance.md,
// "quire-bench's repeated rows, thirteenth pass") are measured --repeat times in a run:
// seeding the records into that many fresh stores, the append at c=1 in that many times the
// rounds, and the query and search while indexing after that many bursts of revisions, each
// beside a steady figure taken just before it. The table gives each one's median and range.

// seedOnly seeds the records into a fresh store of its own, as the kept run does (the
// workspace, the top-level pages and the long page first, the indexer let drain), times the
// writes, and stops the server at the last answer: the indexer's work on them is not waited
// for, and the store is removed.
func (r *runner) seedOnly(ctx context.Context, eng string, pg *postgresServer, size speedSize, i, n int) (phase, error) {
	fs, err := r.fresh(ctx, eng, pg)
	if err != nil {
		return phase{}, err
	}
	defer fs.remove()
	var sd speedSeed
	if sd.Token, sd.Users, err = setupWorkspace(ctx, fs.cfg); err != nil {
		return phase{}, err
	}
	sv, err := r.serve(ctx, fs, sd.Token)
	if err != nil {
		return phase{}, err
	}
	defer sv.stop()
	w := newSpeedWriter(r, sv, sd.Token)
	fmt.Fprintf(r.stderr, "%s: seeding %d of %d, into a store of its own (removed after the writes) …\n", engineTitles[eng], i, n)
	data, err := w.tops(ctx, &sd, size)
	if err != nil {
		return phase{}, sv.died(err)
	}
	batches, err := recordBatches(size.Records, sd.Users)
	if err != nil {
		return phase{}, err
	}
	p, err := w.phase(ctx, size.Records, "records", func() error { return w.s.speedRecords(ctx, &sd, data, batches) }, false)
	if err != nil {
		return p, sv.died(err)
	}
	return p, nil
}

// appendRepeats measures the append at c=1 in (repeat-1)×rounds more rounds after the steady
// ones, as they do (quire and the bare handler back to back, alternating which goes first, the
// queue let empty after each quire run), and adds them to the append row of steady.
func (r *runner) appendRepeats(ctx context.Context, sv *served, eps []endpoint, steady []row, repeat int) error {
	i := slices.IndexFunc(eps, func(e endpoint) bool { return e.name == "append" })
	if repeat <= 1 || i < 0 {
		return nil
	}
	drain := func() error { return waitIndexed(ctx, sv.poll, sv.q.exited, io.Discard, time.Now()) }
	if err := drain(); err != nil {
		return err
	}
	cfg := r.cfg
	cfg.conns, cfg.warmup, cfg.rounds = []int{1}, 0, (repeat-1)*r.cfg.rounds
	fmt.Fprintf(r.stderr, "  the append at c=1, %d more rounds …\n", cfg.rounds)
	m := &measurer{cfg: cfg, loader: r.loader, urls: [2]string{sv.q.url, r.bare}, stderr: r.stderr, drain: drain, first: r.cfg.rounds + 1, watch: sv.watch}
	more, err := m.measure(ctx, eps[i:i+1])
	if err != nil {
		return err
	}
	addRounds(steady, more)
	return nil
}

// whileIndexing measures the query and the search at c=1 while the indexer embeds what was
// just written, repeat times: each time, once the queue is empty, one round of both steady,
// then the first paragraphs of the next repeat-th of the corpus pages revised (so the indexer
// embeds those pages again), then one round of both at once, with the queue's length around
// each quire run. It returns the rounds while indexing, the steady rounds of the same windows,
// and the queue's length after each burst of revisions.
func (w *speedWriter) whileIndexing(ctx context.Context, sd *speedSeed, steady []endpoint, repeat int) (while, before []row, queued []int64, err error) {
	var eps []endpoint
	for _, e := range steady {
		if e.name == "query" || e.name == "search" {
			eps = append(eps, e)
		}
	}
	pages := len(sd.First)
	repeat = max(1, min(repeat, pages))
	cfg := w.cfg
	cfg.conns, cfg.warmup, cfg.rounds = []int{1}, 0, 1
	for k := range repeat {
		from, to := k*pages/repeat, (k+1)*pages/repeat
		if err := waitIndexed(ctx, w.poll, w.q.exited, io.Discard, time.Now()); err != nil {
			return nil, nil, nil, err
		}
		fmt.Fprintf(w.stderr, "  while indexing %d of %d: query and search steady, then corpus pages %d to %d revised and both again while the indexer embeds them …\n", k+1, repeat, from+1, to)
		m := &measurer{cfg: cfg, loader: w.loader, urls: [2]string{w.q.url, w.bare}, stderr: w.stderr, watch: w.watch}
		rows, err := m.measure(ctx, eps)
		if err != nil {
			return nil, nil, nil, err
		}
		before = addRounds(before, rows)
		if err := w.s.speedRevise(ctx, sd, from, to); err != nil {
			return nil, nil, nil, err
		}
		n, err := w.poll.EmbedQueueLength(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		queued = append(queued, n)
		m.queue = func() (int64, error) { return w.poll.EmbedQueueLength(ctx) }
		if rows, err = m.measure(ctx, eps); err != nil {
			return nil, nil, nil, err
		}
		while = addRounds(while, rows)
	}
	return while, before, queued, nil
}

// addRounds adds the rounds of more to the rows of into of the same endpoint and concurrency,
// and the rows into does not have; it returns into.
func addRounds(into, more []row) []row {
	for _, m := range more {
		i := slices.IndexFunc(into, func(r row) bool { return r.Endpoint == m.Endpoint && r.Conns == m.Conns })
		if i < 0 {
			into = append(into, m)
			continue
		}
		r := &into[i]
		r.Quire, r.Bare = append(r.Quire, m.Quire...), append(r.Bare, m.Bare...)
		r.QueueBefore, r.QueueAfter = append(r.QueueBefore, m.QueueBefore...), append(r.QueueAfter, m.QueueAfter...)
		r.DB = append(r.DB, m.DB...)
	}
	return into
}

// spread is the median and the range of one figure's samples.
type spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

// spreadOf summarises xs; no samples give the zero spread.
func spreadOf(xs []float64) spread {
	if len(xs) == 0 {
		return spread{}
	}
	return spread{Median: median(xs), Min: slices.Min(xs), Max: slices.Max(xs), N: len(xs)}
}

// noisyRows are the repeated rows' medians and ranges, as the table gives them; --save writes
// them beside the samples they are computed from (--from computes them again).
type noisyRows struct {
	SeedingSecs spread `json:"seeding_s"`        // seconds to write the records, a store each
	AppendP50   spread `json:"append_c1_p50_ms"` // the append's c=1 p50, a round each
	WhileQuery  spread `json:"while_query_ratio"`
	WhileSearch spread `json:"while_search_ratio"` // p50 while indexing ÷ the steady p50 just before, a repeat each
}

// noisyOf computes s's noisy rows.
func noisyOf(s speedSet) *noisyRows {
	n := &noisyRows{SeedingSecs: seedingSpread(s), WhileQuery: whileSpread(s, "query"), WhileSearch: whileSpread(s, "search")}
	if r := findRow(s.Steady, "append", 1); r != nil {
		n.AppendP50 = p50Spread(*r)
	}
	return n
}

// seedingSpread is the seconds the records' writes took in each seeding of the run.
func seedingSpread(s speedSet) spread {
	var secs []float64
	for _, p := range append(slices.Clone(s.RecordsEarlier), s.RecordsSeed) {
		secs = append(secs, p.WriteSecs)
	}
	return spreadOf(secs)
}

// p50Spread is the quire p50 of each round of r in milliseconds, rounds in which nothing
// finished left out.
func p50Spread(r row) spread {
	var p50s []float64
	for _, f := range r.Quire {
		if f.RPS > 0 {
			p50s = append(p50s, float64(f.P50)/float64(time.Millisecond))
		}
	}
	return spreadOf(p50s)
}

// whileSpread is, for each repeat, endpoint name's p50 while indexing divided by its steady
// p50 just before; a run saved before the repeats has no steady rounds of its own and gives
// the zero spread.
func whileSpread(s speedSet, name string) spread {
	wr, st := findRow(s.While, name, 1), findRow(s.WhileSteady, name, 1)
	if wr == nil || st == nil {
		return spread{}
	}
	var ratios []float64
	for k := range min(len(wr.Quire), len(st.Quire)) {
		if wr.Quire[k].RPS > 0 && st.Quire[k].RPS > 0 {
			ratios = append(ratios, float64(wr.Quire[k].P50)/float64(st.Quire[k].P50))
		}
	}
	return spreadOf(ratios)
}
