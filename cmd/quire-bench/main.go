// Command quire-bench measures GET /v2/users/me of a real quire server against a bare
// net/http JSON handler on the same machine, in the same run, with wrk.
//
// It builds ./cmd/quire, seeds a fresh store (one workspace, one user, one workspace-scoped
// token with every scope) through quire's admin commands, starts "quire serve" as a child
// process on a free loopback port and a bare handler in process on another, then runs wrk
// against each in interleaved rounds. Absolute figures on a shared machine drift from run to
// run; the ratio quire/bare within a round is what is worth comparing. Run it from the
// repository root:
//
//	go run ./cmd/quire-bench [--rounds 5] [--duration 3s] [--conns 1,16]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const usage = `quire-bench: load benchmark of GET /v2/users/me against a bare net/http JSON handler.

Usage (from the repository root):
  go run ./cmd/quire-bench [flags]

Builds ./cmd/quire, seeds a temporary store with quire's admin commands, starts "quire serve"
and an in-process bare handler on loopback, and runs wrk (with --latency) against each in
interleaved rounds: every round measures quire and the bare handler back to back at each
concurrency, alternating which goes first. Prints a Markdown table to stdout (medians over the
rounds; the ratio is the median of per-round quire/bare ratios, with their range) and progress
to stderr. Stops the server and removes the temporary folder when done, on error, or on Ctrl-C.

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
	wrk         string
	verbose     bool
}

// errUsage marks a wrong invocation (exit status 2); the flag package has printed why.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "quire-bench:", err)
		os.Exit(1)
	}
}

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
	fs.StringVar(&cfg.databaseURL, "database-url", "", "run quire on this PostgreSQL database (postgres://…) instead of a temporary SQLite folder")
	fs.StringVar(&cfg.logLevel, "log-level", "info", "quire serve --log-level; info (the default) logs every request, as in production")
	fs.StringVar(&cfg.wrk, "wrk", "wrk", "the wrk program")
	fs.BoolVar(&cfg.verbose, "verbose", false, "also print every wrk run's figures to stderr")
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
	fs.VisitAll(func(f *flag.Flag) {
		kind, text := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		line += "\n      " + text
		if f.DefValue != "" && f.DefValue != "false" {
			line += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintln(w, line)
	})
}

// check rejects settings wrk cannot run.
func (c config) check() error {
	if c.rounds < 1 {
		return errors.New("--rounds must be at least 1")
	}
	if c.duration < time.Second || c.duration%time.Second != 0 {
		return errors.New("--duration must be a whole number of seconds, at least 1s (wrk takes whole seconds)")
	}
	if c.warmup < 0 || c.warmup%time.Second != 0 {
		return errors.New("--warmup must be 0 or a whole number of seconds")
	}
	return nil
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
