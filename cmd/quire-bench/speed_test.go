package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSpeedPipeline runs --scenario speed at scale 0.009 (900 records, 9 corpus pages, a
// 90-paragraph page; with --repeat 3, bursts of 3 revised pages, which keep the indexer busy
// through a while-round) on both engines with the built-in load generator: every row's data
// written over HTTP, each phase indexed, every endpoint against the bare handler steady and
// the query and search while the indexer embeds the revised corpus. Every load run fails on
// an answer that is not 2xx, and the run itself fails unless the query matches exactly the
// opt7 records written and each WORD finds something.
func TestSpeedPipeline(t *testing.T) {
	for _, engine := range []string{engineSQLite, enginePostgres} {
		t.Run(engine, func(t *testing.T) { runSpeedPipeline(t, engine) })
	}
}

func runSpeedPipeline(t *testing.T, engine string) {
	dir := t.TempDir()
	save := filepath.Join(dir, "speed.json")
	report := runBench(t, engine, 15*time.Minute, "--scenario", "speed", "--scale", "0.009", "--rounds", "1", "--warmup", "0",
		"--conns", "1,16", "--log-level", "warn", "--save", save, "--loadgen", "go", "--duration", "100ms")
	res, err := loadResults([]string{save})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Speed) != 1 || len(res.Sets) != 0 {
		t.Fatalf("saved %d speed sets and %d load sets, want 1 and 0", len(res.Speed), len(res.Sets))
	}
	s := res.Speed[0]
	if s.Engine != engine || s.Size != (speedSize{Scale: 0.009, Records: 900, Pages: 9, LongPage: 90}) {
		t.Errorf("measured %s at %+v", s.Engine, s.Size)
	}
	if share := float64(s.Seed.Matches) / 900; s.Seed.Matches != opt7Records(900) || share < 0.02 || share > 0.09 {
		t.Errorf("opt7 matches %d of 900 records (%d written), want about 5%%", s.Seed.Matches, opt7Records(900))
	}
	if len(s.Seed.Words) != speedSearchWords {
		t.Errorf("%d WORDs, want %d", len(s.Seed.Words), speedSearchWords)
	}
	for _, w := range s.Seed.Words {
		if share := float64(s.Seed.WordParas[w]) / 900; share < 0.003 || share > 0.01 {
			t.Errorf("WORD %q in %d of 900 paragraphs, want about 0.6%%", w, s.Seed.WordParas[w])
		}
	}
	for name, p := range map[string]phase{"records": s.RecordsSeed, "corpus": s.CorpusSeed} {
		// A record is one chunk (its title); a corpus page of 100 twelve-word paragraphs is 32.
		if p.WriteSecs <= 0 || p.IndexSecs < p.WriteSecs || p.Chunks < int64(p.Writes) {
			t.Errorf("%s phase %+v: not timed, or its chunks not embedded", name, p)
		}
		if p.WriteChunks < 0 || p.WriteChunks > p.Chunks {
			t.Errorf("%s phase %+v: %d chunks embedded while writing, of %d", name, p, p.WriteChunks, p.Chunks)
		}
	}
	if len(s.Steady) != 10 || len(s.While) != 2 || len(s.WhileSteady) != 2 {
		t.Fatalf("%d steady rows, %d while indexing and %d steady beside them, want 10 (5 endpoints at c=1 and c=16), 2 and 2",
			len(s.Steady), len(s.While), len(s.WhileSteady))
	}
	// --repeat 3 (the default): the append at c=1 in 3 rounds, the other rows in --rounds 1; the
	// query and search while indexing after 3 bursts, each beside a steady round of its own.
	for _, r := range append(append(slices.Clone(s.Steady), s.While...), s.WhileSteady...) {
		for i := range r.Quire {
			if q, b := r.Quire[i], r.Bare[i]; q.RPS <= 0 || b.RPS <= 0 || q.P50 <= 0 || q.Bytes <= 0 {
				t.Errorf("%s c=%d round %d: quire %+v, bare %+v", r.Endpoint, r.Conns, i+1, q, b)
			}
		}
	}
	for _, r := range s.Steady {
		want := 1
		if r.Endpoint == "append" && r.Conns == 1 {
			want = 3
		}
		if len(r.Quire) != want || len(r.Bare) != want {
			t.Errorf("%s c=%d: %d quire and %d bare rounds, want %d", r.Endpoint, r.Conns, len(r.Quire), len(r.Bare), want)
		}
	}
	for _, r := range append(slices.Clone(s.While), s.WhileSteady...) {
		if r.Conns != 1 || len(r.Quire) != 3 || len(r.Bare) != 3 {
			t.Errorf("%s c=%d while indexing or just before: %d quire and %d bare rounds, want 3 at c=1", r.Endpoint, r.Conns, len(r.Quire), len(r.Bare))
		}
	}
	for _, r := range s.While {
		if len(r.QueueBefore) != 3 || len(r.QueueAfter) != 3 || slices.Contains(r.QueueBefore, 0) || slices.Contains(r.QueueAfter, 0) {
			t.Errorf("%s while indexing: queue %v before, %v after; want it non-empty throughout all 3 bursts", r.Endpoint, r.QueueBefore, r.QueueAfter)
		}
	}
	if len(s.RevisedQueues) != 3 || s.Revised != s.RevisedQueues[0] || slices.ContainsFunc(s.RevisedQueues, func(n int64) bool { return n < 3 }) {
		t.Errorf("nodes queued after each of the 3 bursts of revisions (3 corpus pages each): %v (first %d)", s.RevisedQueues, s.Revised)
	}
	if s.Repeat != 3 || len(s.RecordsEarlier) != 2 {
		t.Fatalf("repeat %d, %d earlier seedings; want 3 and 2", s.Repeat, len(s.RecordsEarlier))
	}
	for i, p := range s.RecordsEarlier {
		if p.Writes != 900 || p.WriteSecs <= 0 || p.IndexSecs != 0 {
			t.Errorf("earlier seeding %d: %+v, want 900 records' writes timed, the indexer not waited for", i+1, p)
		}
	}
	if s.Noisy == nil || *s.Noisy != *noisyOf(s) {
		t.Errorf("saved noisy rows %+v, computed from the samples %+v", s.Noisy, noisyOf(s))
	}
	if n := s.Noisy; n != nil && (n.SeedingSecs.N != 3 || n.AppendP50.N != 3 || n.WhileQuery.N != 3 || n.WhileSearch.N != 3) {
		t.Errorf("noisy rows %+v: want 3 samples each", *n)
	}
	for _, want := range []string{"median of 3 seedings", "median of 3 rounds", "the steady p50 just before, median of 3 bursts",
		"steady just before each burst |", "the records seeded 3 times", "while indexing: 3 bursts of revisions",
		"- query's p50 just before each burst → while indexing: "} {
		if !strings.Contains(report, want) {
			t.Errorf("report does not say %q:\n%s", want, report)
		}
	}
	for _, r := range speedRows {
		if !strings.Contains(report, "| "+r.label(s.Size)+" | ") {
			t.Errorf("report has no row %q:\n%s", r.label(s.Size), report)
		}
	}
	var again, stderr bytes.Buffer
	if err := run(context.Background(), []string{"--from", save}, &again, &stderr); err != nil || again.String() != report {
		t.Errorf("--from %s: %v; report differs:\n%s\nfirst:\n%s", save, err, again.String(), report)
	}
}

// TestSpreadOf: the median of an odd count is the middle sample, of an even count the mean of
// the two middle ones, whatever the samples' order; the range is the smallest and the largest.
func TestSpreadOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		want spread
	}{
		{"none", nil, spread{}},
		{"one", []float64{5.53}, spread{Median: 5.53, Min: 5.53, Max: 5.53, N: 1}},
		{"two", []float64{6, 4}, spread{Median: 5, Min: 4, Max: 6, N: 2}},
		{"odd, unsorted", []float64{22.5, 16.8, 23.7}, spread{Median: 22.5, Min: 16.8, Max: 23.7, N: 3}},
		{"even, unsorted", []float64{3, 9, 1, 5}, spread{Median: 4, Min: 1, Max: 9, N: 4}},
		{"repeated middle", []float64{2, 7, 7, 1, 7}, spread{Median: 7, Min: 1, Max: 7, N: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs := slices.Clone(tc.xs)
			if got := spreadOf(xs); got != tc.want {
				t.Errorf("spreadOf(%v) = %+v, want %+v", tc.xs, got, tc.want)
			}
			if !slices.Equal(xs, tc.xs) {
				t.Errorf("spreadOf reordered its samples: %v", xs)
			}
		})
	}
}

// TestNoisyOf: the repeated rows are summarised from their own samples: every seeding's writes
// (the kept one's too), every round's append p50 at c=1 (not c=16's), and each burst's p50
// while indexing over the steady p50 of the same burst, not over the steady rounds'; a round
// in which nothing finished is left out.
func TestNoisyOf(t *testing.T) {
	msFig := func(rps, p50 float64) fig { return fig{RPS: rps, P50: time.Duration(p50 * float64(time.Millisecond))} }
	bare := func(rows []row) []row { // the bare handler's figures beside each round
		for i := range rows {
			for range rows[i].Quire {
				rows[i].Bare = append(rows[i].Bare, fig{RPS: 10_000, P50: 50 * time.Microsecond})
			}
		}
		return rows
	}
	s := speedSet{
		RecordsSeed:    phase{Writes: 100_000, WriteSecs: 16.8, IndexSecs: 81},
		RecordsEarlier: []phase{{Writes: 100_000, WriteSecs: 23.7}, {Writes: 100_000, WriteSecs: 22.5}},
		Steady: bare([]row{
			{Endpoint: "query", Conns: 1, Quire: []fig{msFig(600, 10), msFig(600, 10), msFig(600, 10)}},
			{Endpoint: "append", Conns: 1, Quire: []fig{msFig(150, 6.5), msFig(0, 0), msFig(190, 3.9), msFig(140, 5.5)}},
			{Endpoint: "append", Conns: 16, Quire: []fig{msFig(200, 60), msFig(200, 70)}},
		}),
		WhileSteady: bare([]row{
			{Endpoint: "query", Conns: 1, Quire: []fig{msFig(600, 1.5), msFig(600, 2), msFig(600, 1)}},
			{Endpoint: "search", Conns: 1, Quire: []fig{msFig(500, 2), msFig(500, 2)}},
		}),
		While: bare([]row{
			{Endpoint: "query", Conns: 1, Quire: []fig{msFig(400, 3), msFig(400, 2), msFig(400, 1.2)}},
			{Endpoint: "search", Conns: 1, Quire: []fig{msFig(0, 0), msFig(300, 3)}},
		}),
	}
	got := *noisyOf(s)
	want := noisyRows{
		SeedingSecs: spread{Median: 22.5, Min: 16.8, Max: 23.7, N: 3},
		AppendP50:   spread{Median: 5.5, Min: 3.9, Max: 6.5, N: 3},
		WhileQuery:  spread{Median: 1.2, Min: 1, Max: 2, N: 3},
		WhileSearch: spread{Median: 1.5, Min: 1.5, Max: 1.5, N: 1},
	}
	near := func(a, b spread) bool {
		const eps = 1e-9
		return a.N == b.N && math.Abs(a.Median-b.Median) < eps && math.Abs(a.Min-b.Min) < eps && math.Abs(a.Max-b.Max) < eps
	}
	if !near(got.SeedingSecs, want.SeedingSecs) || !near(got.AppendP50, want.AppendP50) ||
		!near(got.WhileQuery, want.WhileQuery) || !near(got.WhileSearch, want.WhileSearch) {
		t.Errorf("noisyOf = %+v\nwant      %+v", got, want)
	}
	cells := speedCells(s, "seeding")
	if want := "22.5 s (4,444/s), median of 3 seedings (16.8–23.7 s)"; cells[0] != want {
		t.Errorf("seeding cell %q, want %q", cells[0], want)
	}
	if cells := speedCells(s, "append"); !strings.HasSuffix(cells[0], ", median of 3 rounds (3.900–6.500)") {
		t.Errorf("append cell %q: no median and range of its 3 rounds", cells[0])
	}
	if cells := speedCells(s, "query"); !strings.Contains(cells[2], "**1.20×** the steady p50 just before, median of 3 bursts (1.00–2.00×)") {
		t.Errorf("query's while-indexing cell %q", cells[2])
	}
	if got, want := burstPairs(s, "query"), "1.500 ms → 3.000 ms (2.00×), 2.000 ms → 2.000 ms (1.00×), 1.000 ms → 1.200 ms (1.20×)"; got != want {
		t.Errorf("burstPairs = %q, want %q", got, want)
	}
}

// TestSpeedReportFromOldSave: --from reads a run saved before --repeat (session 15's full-scale
// SQLite run, testdata/speed-s15-sqlite.json) and prints its figures as they were measured:
// one seeding, the append's 3 rounds, while indexing against the steady rounds; merged with a
// later run, both engines' columns print.
func TestSpeedReportFromOldSave(t *testing.T) {
	old := filepath.Join("testdata", "speed-s15-sqlite.json")
	var out, stderr bytes.Buffer
	if err := run(context.Background(), []string{"--from", old}, &out, &stderr); err != nil {
		t.Fatalf("--from %s: %v\n%s", old, err, stderr.String())
	}
	report := out.String()
	for _, want := range []string{
		"| 16.8 s (5,961/s) |",                                         // one seeding, no median
		"| 5.530 ms, median of 3 rounds (3.910–6.560) |",               // the append's rounds as saved
		"2.350 ms (1.52× steady; queue 1000→1000, 974→974, 958→942) |", // while indexing against the steady rounds
		"- while indexing: 1,000 nodes queued after revising the corpus pages",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report of the old save does not say %q:\n%s", want, report)
		}
	}
	res, err := loadResults([]string{old})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Speed[0]
	if s.Repeat != 0 || s.Noisy != nil || s.WhileSteady != nil {
		t.Errorf("the old save read with repeats: %d, %v, %v", s.Repeat, s.Noisy, s.WhileSteady)
	}
	if n := noisyOf(s); n.SeedingSecs.N != 1 || n.AppendP50.N != 3 || n.WhileQuery.N != 0 {
		t.Errorf("noisyOf the old save = %+v: want one seeding, 3 append rounds, no burst of its own", *n)
	}
}

// TestRemoteSendsLength: the seeder's requests reach the server with a Content-Length, as a
// client holding its body sends them, not chunked (which costs the server a chunk reader and
// leaves it no length to size its buffer from).
func TestRemoteSendsLength(t *testing.T) {
	type seen struct {
		length   int64
		encoding []string
		body     string
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.ContentLength, r.TransferEncoding, string(b)}
		w.Write([]byte(`{"id":"x"}`))
	}))
	defer srv.Close()
	s := &seeder{api: newRemote(srv.URL), token: "t"}
	if err := s.send(context.Background(), "POST", "/v2/x", []byte(`{"a":1}`), nil); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g.length != 7 || len(g.encoding) != 0 || g.body != `{"a":1}` {
		t.Fatalf("the server saw length %d, transfer encoding %v, body %q", g.length, g.encoding, g.body)
	}
}
