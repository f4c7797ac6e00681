package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSpeedPipeline runs --scenario speed at scale 0.003 (300 records, 3 corpus pages, a
// 30-paragraph page) on both engines with the built-in load generator: every row's data
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
	report := runBench(t, engine, 15*time.Minute, "--scenario", "speed", "--scale", "0.003", "--rounds", "1", "--warmup", "0",
		"--conns", "1,16", "--log-level", "warn", "--save", save, "--loadgen", "go", "--duration", "100ms")
	res, err := loadResults([]string{save})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Speed) != 1 || len(res.Sets) != 0 {
		t.Fatalf("saved %d speed sets and %d load sets, want 1 and 0", len(res.Speed), len(res.Sets))
	}
	s := res.Speed[0]
	if s.Engine != engine || s.Size != (speedSize{Scale: 0.003, Records: 300, Pages: 3, LongPage: 30}) {
		t.Errorf("measured %s at %+v", s.Engine, s.Size)
	}
	if share := float64(s.Seed.Matches) / 300; s.Seed.Matches != opt7Records(300) || share < 0.02 || share > 0.09 {
		t.Errorf("opt7 matches %d of 300 records (%d written), want about 5%%", s.Seed.Matches, opt7Records(300))
	}
	if len(s.Seed.Words) != speedSearchWords {
		t.Errorf("%d WORDs, want %d", len(s.Seed.Words), speedSearchWords)
	}
	for _, w := range s.Seed.Words {
		if share := float64(s.Seed.WordParas[w]) / 300; share < 0.003 || share > 0.01 {
			t.Errorf("WORD %q in %d of 300 paragraphs, want about 0.6%%", w, s.Seed.WordParas[w])
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
	if len(s.Steady) != 10 || len(s.While) != 2 {
		t.Fatalf("%d steady rows and %d while indexing, want 10 (5 endpoints at c=1 and c=16) and 2", len(s.Steady), len(s.While))
	}
	for _, r := range append(s.Steady, s.While...) {
		if q, b := r.Quire[0], r.Bare[0]; q.RPS <= 0 || b.RPS <= 0 || q.P50 <= 0 || q.Bytes <= 0 {
			t.Errorf("%s c=%d: quire %+v, bare %+v", r.Endpoint, r.Conns, q, b)
		}
	}
	for _, r := range s.While {
		if len(r.QueueBefore) != 1 || len(r.QueueAfter) != 1 || r.QueueBefore[0] == 0 || r.QueueAfter[0] == 0 {
			t.Errorf("%s while indexing: queue %v before, %v after; want it non-empty throughout", r.Endpoint, r.QueueBefore, r.QueueAfter)
		}
	}
	if s.Revised < 3 {
		t.Errorf("%d nodes queued after revising the 3 corpus pages", s.Revised)
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
