package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/testdb"
)

func TestMain(m *testing.M) {
	code := testdb.Main(m)
	if quireBin != "" {
		_ = os.RemoveAll(filepath.Dir(quireBin))
	}
	os.Exit(code)
}

var (
	quireOnce sync.Once
	quireBin  string
	quireErr  error
)

// quireBinary builds ./cmd/quire once for every pipeline run of this test binary.
func quireBinary(t *testing.T) string {
	t.Helper()
	quireOnce.Do(func() {
		dir, err := os.MkdirTemp("", "quire-bench-test-")
		if err != nil {
			quireErr = err
			return
		}
		quireBin, quireErr = buildQuire(context.Background(), dir)
	})
	if quireErr != nil {
		t.Fatal(quireErr)
	}
	return quireBin
}

// runPipeline runs the whole benchmark at 500 blocks (build, seed, serve, index, every
// endpoint against the bare handler, report, JSON, plot) and checks what it produced. Every
// load run fails on an answer that is not 2xx, so a passing run means every endpoint answered.
func runPipeline(t *testing.T, engine string, extra ...string) {
	t.Helper()
	dir := t.TempDir()
	save, plot := filepath.Join(dir, "load.json"), filepath.Join(dir, "load.png")
	args := append([]string{"--blocks", "500", "--rounds", "1", "--warmup", "0",
		"--conns", "1", "--log-level", "warn", "--save", save, "--plot", plot}, extra...)
	report := runBench(t, engine, 3*time.Minute, args...)
	for _, name := range endpointNames {
		want := "| 500 | `" + endpointLabels[name] + "` | 1 | "
		if !strings.Contains(report, want) {
			t.Errorf("report has no row %q:\n%s", want, report)
		}
	}
	res, err := loadResults([]string{save})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sets) != 1 {
		t.Fatalf("saved %d sets, want 1", len(res.Sets))
	}
	set := res.Sets[0]
	if set.Engine != engine || set.Seed.Blocks != 500 || set.Seed.NPages != 1 || set.Seed.Records != minRecords || set.Seed.MindMaps != 1 || set.Seed.Embedded != 1 {
		t.Errorf("seeded %+v on %s, want 500 blocks in 1 page, %d records, 1 mind map on %s", set.Seed, set.Engine, minRecords, engine)
	}
	// A title chunk for each of 12 section and scratch pages at least, and the content page's.
	if set.Chunks < 12 {
		t.Errorf("%d chunks embedded; the indexer's queue was not waited for", set.Chunks)
	}
	if len(set.Rows) != len(endpointNames) {
		t.Fatalf("%d rows saved, want %d", len(set.Rows), len(endpointNames))
	}
	for _, r := range set.Rows {
		q, b := r.Quire[0], r.Bare[0]
		if q.RPS <= 0 || b.RPS <= 0 || q.P50 <= 0 || q.P99 < q.P50 || q.Bytes <= 0 {
			t.Errorf("%s: quire %+v, bare %+v", r.Endpoint, q, b)
		}
	}
	// The children answer lists 100 blocks; users/me is one small object.
	if me, ch := set.Rows[0].Quire[0].Bytes, set.Rows[2].Quire[0].Bytes; ch < 10*me {
		t.Errorf("children answer %.0f bytes, users/me %.0f: the children requests did not list blocks", ch, me)
	}
	f, err := os.Open(plot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("plot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != panelW || b.Dy() != panelH+legendH {
		t.Errorf("plot is %v, want one panel %dx%d", b, panelW, panelH+legendH)
	}
}

// runBench runs quire-bench on engine with args and the test's quire binary (and PostgreSQL
// server), within timeout, and returns its report.
func runBench(t *testing.T, engine string, timeout time.Duration, args ...string) string {
	t.Helper()
	args = append(args, "--engine", engine, "--quire", quireBinary(t))
	if engine == enginePostgres {
		args = append(args, "--database-url", testdb.PostgresURL(t))
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	return stdout.String()
}

// TestPipeline runs the pipeline on both engines with the built-in load generator, a tenth
// of a second per run, so that it needs nothing but Go and PostgreSQL's binaries.
func TestPipeline(t *testing.T) {
	for _, engine := range []string{engineSQLite, enginePostgres} {
		t.Run(engine, func(t *testing.T) { runPipeline(t, engine, "--loadgen", "go", "--duration", "100ms") })
	}
}

// TestPipelineWrk runs it with wrk and its Lua scripts, where wrk is installed.
func TestPipelineWrk(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Skip("wrk is not installed (apt-get install -y wrk): the wrk path is not tested; TestPipeline covers the rest")
	}
	if testing.Short() {
		t.Skip("-short: 14 one-second wrk runs")
	}
	runPipeline(t, engineSQLite, "--duration", "1s")
}
