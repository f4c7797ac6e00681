// Command quire-bench measures the real quire server against a bare net/http JSON handler on
// the same machine, in the same run, with wrk (or a built-in Go load generator).
//
// For each engine and store size asked for, it seeds a fresh store in process through the API
// handler (a workspace of --blocks blocks in pages of 1,000, a database of records, mind maps),
// starts "quire serve" (built from ./cmd/quire) as a child process on a free loopback port,
// waits until the background indexer has embedded everything, and then measures each endpoint
// and, with the same requests, a bare handler in this process, in interleaved rounds. Absolute
// figures on a shared machine drift from run to run; the ratio quire/bare within a round is
// what is worth comparing. Run it from the repository root:
//
//	go run ./cmd/quire-bench                                   # GET /v2/users/me only, as before
//	go run ./cmd/quire-bench --blocks 10000,100000 --engine sqlite,postgres --plot docs/load-latency.png
//
// --scenario speed reproduces issue 15's speed table instead, with its data shapes and requests
// (speed.go): the data is written over HTTP to the running server, so seeding and the indexer's
// work on it are timed too, and the query and search rows are measured again while the indexer
// embeds what was just written. The rows one run reads least reliably (seeding, the append at
// c=1, while indexing) are measured --repeat times and reported as a median and a range
// (speed_repeat.go).
//
//	go run ./cmd/quire-bench --scenario speed --engine sqlite,postgres --save speed.json
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/quire-dev/quire/internal/cli"
)

const usage = `quire-bench: load benchmark of quire's endpoints against a bare net/http JSON handler.

Usage (from the repository root):
  go run ./cmd/quire-bench [flags]

Builds ./cmd/quire. For each --engine and each --blocks size: seeds a fresh store through the
API handler in process (--blocks 0: only a workspace and a token), starts "quire serve" on
loopback, waits until its indexer has embedded everything, and runs wrk (with --latency and a
Lua script per endpoint) against quire and an in-process bare handler in interleaved rounds:
every round measures both back to back for each endpoint and concurrency, alternating which
goes first. PostgreSQL runs on a throwaway cluster started with the machine's initdb and pg_ctl
unless --database-url names a server (its role needs CREATEDB: each size gets its own database,
dropped afterwards). Prints Markdown tables to stdout (medians over the rounds; the ratio is the
median of per-round quire/bare ratios, with their range) and progress to stderr. Stops the
servers and removes every temporary store when done, on error, or on Ctrl-C.

--scenario speed: issue 15's table instead, per engine on a fresh store (--scale 1: 100,000
records of ten properties, 1,000 pages of 100 paragraphs, a 10,000-paragraph page), all written
over HTTP to quire serve and timed with the indexer's work on each; then the page, children,
query, search and append rows against a bare handler encoding a 1.2 KB page, steady, and the
query and search at c=1 while the indexer embeds the corpus again. One Markdown table. The rows
one run reads least reliably are measured --repeat times (3) and given as a median and a range:
the records seeded into that many fresh stores, the append at c=1 in that many times --rounds,
the query and search after that many bursts of revisions, each beside a steady round just before.

Flags:
`

// config is what one benchmark run does, from the command line.
type config struct {
	rounds      int
	duration    time.Duration
	warmup      time.Duration
	conns       []int
	databaseURL string
	logLevel    string
	pprof       string // quire serve --pprof: its profiles on this loopback address while measuring
	wrk         string
	verbose     bool
	blocks      []int    // store sizes
	engines     []string // engineSQLite, enginePostgres
	endpoints   []string // endpoint names, in measuring order
	loadgen     string   // "wrk" or "go"
	save        string   // write the results as JSON here
	from        []string // render these saved results instead of measuring
	plot        string   // draw latency against store size into this PNG
	embedPages  int      // content pages left to the indexer; -1 = all
	quire       string   // a quire binary to run instead of building ./cmd/quire
	scenario    string   // "load" (store sizes × endpoints) or scenarioSpeed
	scale       float64  // --scenario speed: the data shapes times this
	keepStore   string   // --scenario speed on SQLite: keep the seeded store here and measure nothing
	repeat      int      // --scenario speed: the seedings, append rounds (times rounds) and bursts of revisions
}

// errUsage marks a wrong invocation (exit status 2); the flag package has printed why.
var errUsage = cli.ErrUsage

func main() { cli.Main("quire-bench", run) }

// run parses the flags and runs the benchmark; main only reports what it returns.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, help, err := parseFlags(args, stderr)
	if help || err != nil {
		return err
	}
	return benchmark(ctx, cfg, stdout, stderr)
}

// parseFlags reads the command line; help is true when --help was asked for (and answered).
// A wrong flag is reported on stderr and answered errUsage.
func parseFlags(args []string, stderr io.Writer) (cfg config, help bool, err error) {
	fs := flag.NewFlagSet("quire-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.rounds, "rounds", 5, "interleaved rounds (quire and bare at each concurrency per round)")
	fs.DurationVar(&cfg.duration, "duration", 3*time.Second, "length of one wrk run, whole seconds")
	fs.DurationVar(&cfg.warmup, "warmup", time.Second, "unrecorded wrk run against each server before the rounds, whole seconds; 0 = none")
	conns := fs.String("conns", "1,16", "comma-separated wrk connection counts (wrk threads = min(conns, 2))")
	fs.StringVar(&cfg.databaseURL, "database-url", "", "PostgreSQL server (postgres://…) for --engine postgres, instead of a throwaway cluster; its role needs CREATEDB. Alone, it implies --engine postgres")
	blocks := fs.String("blocks", "0", "comma-separated store sizes in blocks, e.g. 10000,100000,1000000; 0 = an empty workspace (users/me only)")
	engines := fs.String("engine", "", "comma-separated engines: sqlite, postgres (default sqlite, or postgres with --database-url)")
	endpoints := fs.String("endpoints", "all", "comma-separated endpoints to measure: "+strings.Join(endpointNames, ", ")+"; or all")
	fs.StringVar(&cfg.loadgen, "loadgen", "wrk", "load generator: wrk, or go (built in; allows runs shorter than a second)")
	fs.StringVar(&cfg.save, "save", "", "write the measured figures as JSON to this file (after each store size)")
	from := fs.String("from", "", "comma-separated JSON files written by --save: print their report (and --plot) without measuring")
	fs.IntVar(&cfg.embedPages, "embed-pages", 10, "content pages (of 1,000 blocks) the indexer embeds for semantic search; the rest are taken off its queue; -1 = all")
	fs.StringVar(&cfg.plot, "plot", "", "draw p50 and p99 latency against store size per endpoint into this PNG file")
	fs.StringVar(&cfg.logLevel, "log-level", "info", "quire serve --log-level; info (the default) logs every request, as in production")
	fs.StringVar(&cfg.pprof, "pprof", "", "quire serve --pprof: serve its CPU and heap profiles at http://ADDR/debug/pprof/ (a loopback ADDR, e.g. 127.0.0.1:6060) to profile it under the load; off when empty")
	fs.StringVar(&cfg.wrk, "wrk", "wrk", "the wrk program")
	fs.StringVar(&cfg.quire, "quire", "", "run this quire binary instead of building ./cmd/quire (it must match the source quire-bench seeds with)")
	fs.BoolVar(&cfg.verbose, "verbose", false, "also print every wrk run's figures to stderr")
	fs.StringVar(&cfg.scenario, "scenario", "load", "load: --blocks sizes × --endpoints; speed: issue 15's speed table (its data shapes and requests, steady and while indexing, seeding and indexing times; --blocks and --endpoints do not apply, --rounds defaults to 3)")
	fs.Float64Var(&cfg.scale, "scale", 1, "--scenario speed: the issue's data (100,000 records, 1,000 pages of 100 paragraphs, a 10,000-paragraph page) times this, e.g. 0.1 for a quick check")
	fs.StringVar(&cfg.keepStore, "keep-store", "", "--scenario speed on one engine: after seeding (and the indexer's work on it), stop the server and keep its store (SQLite: moved to this new folder; PostgreSQL: the database left on --database-url's server), write speed-seed.json (the token, the database URL, every row's requests) in the folder, and measure nothing; for profiling one row on the very store the table measures")
	fs.IntVar(&cfg.repeat, "repeat", 3, "--scenario speed: measure the rows one run reads least reliably this many times and report their median and range: seed the records into this many fresh stores (the last one kept for the rest of the table), run the append at c=1 in this many times --rounds, and measure the query and search while indexing after this many bursts of revisions, each beside a steady round just before it; 1 = each once (one seeding, --rounds append rounds, one burst of the whole corpus between a steady round and a round while indexing)")
	fs.Usage = func() { printUsage(stderr, fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, true, nil
		}
		return cfg, false, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "quire-bench: unexpected argument %q\n", fs.Arg(0))
		return cfg, false, errUsage
	}
	cfg.conns, err = parseConns(*conns)
	if err == nil {
		cfg.blocks, err = parseSizes(*blocks)
	}
	if err == nil {
		cfg.engines, err = parseEngines(*engines, cfg.databaseURL)
	}
	if err == nil {
		cfg.endpoints, err = parseEndpoints(*endpoints)
	}
	if cfg.scenario == scenarioSpeed && !flagSet(fs, "rounds") {
		cfg.rounds = 3 // the table: 3 rounds of 3 s per side
	}
	if *from != "" {
		cfg.from = strings.Split(*from, ",")
	}
	if err == nil {
		err = cfg.check()
	}
	if err != nil {
		fmt.Fprintln(stderr, "quire-bench:", err)
		return cfg, false, errUsage
	}
	return cfg, false, nil
}

// printUsage writes the help text, listing the flags GNU-style (--name) as quire does.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	cli.PrintFlags(w, fs)
}

// check rejects settings wrk cannot run.
func (c config) check() error {
	if c.rounds < 1 {
		return errors.New("--rounds must be at least 1")
	}
	if c.scenario != "load" && c.scenario != scenarioSpeed {
		return errors.New("--scenario must be load or speed")
	}
	if c.repeat < 1 {
		return errors.New("--repeat must be at least 1")
	}
	if c.scale <= 0 || c.scale > 10 {
		return errors.New("--scale must be above 0 and at most 10")
	}
	if c.keepStore != "" {
		if c.scenario != scenarioSpeed || len(c.engines) != 1 || (c.engines[0] == enginePostgres && c.databaseURL == "") {
			return errors.New("--keep-store needs --scenario speed on one engine, and --database-url for postgres (a throwaway cluster is not kept)")
		}
		if _, err := os.Stat(c.keepStore); err == nil {
			return fmt.Errorf("--keep-store %s exists; name a new folder", c.keepStore)
		}
	}
	if c.loadgen != "wrk" && c.loadgen != "go" {
		return errors.New("--loadgen must be wrk or go")
	}
	if c.loadgen == "go" {
		if c.duration <= 0 || c.warmup < 0 {
			return errors.New("--duration must be positive and --warmup not negative")
		}
		return nil
	}
	if c.duration < time.Second || c.duration%time.Second != 0 {
		return errors.New("--duration must be a whole number of seconds, at least 1s (wrk takes whole seconds; --loadgen go does not)")
	}
	if c.warmup < 0 || c.warmup%time.Second != 0 {
		return errors.New("--warmup must be 0 or a whole number of seconds")
	}
	return nil
}

// parseSizes reads --blocks, e.g. "10000,100000".
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("--blocks: %q is not a number of blocks", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseEngines reads --engine; left out, it is sqlite, or postgres when a database URL is given.
func parseEngines(s, databaseURL string) ([]string, error) {
	if s == "" {
		if databaseURL != "" {
			return []string{enginePostgres}, nil
		}
		return []string{engineSQLite}, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f != engineSQLite && f != enginePostgres {
			return nil, fmt.Errorf("--engine: %q is not sqlite or postgres", f)
		}
		out = append(out, f)
	}
	return out, nil
}

// parseConns reads a list such as "1,16".
func parseConns(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--conns: %q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// flagSet reports whether the command line gave flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
