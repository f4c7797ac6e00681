package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"
)

// sample is one round at one concurrency: quire and the bare handler, back to back.
type sample struct {
	quire, bare wrkResult
}

// ratio is quire's throughput as a share of the bare handler's in the same round.
func (s sample) ratio() float64 { return s.quire.rps / s.bare.rps }

// runInfo is what the report's header says about the run.
type runInfo struct {
	engine                string
	quireBytes, bareBytes int
	wrk                   string
	cpus                  int
	goVersion             string
	load                  string // 1-minute load average before measuring, "" when unknown
}

// printReport writes the run's header and a Markdown table with one row per concurrency.
func printReport(w io.Writer, cfg config, info runInfo, byConns map[int][]sample) {
	fmt.Fprintf(w, "quire-bench %s: %d rounds × %s per server and concurrency, warm-up %s\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), cfg.rounds, cfg.duration, cfg.warmup)
	fmt.Fprintf(w, "%s store, quire serve --log-level %s; answers: quire %d bytes, bare %d bytes\n",
		info.engine, cfg.logLevel, info.quireBytes, info.bareBytes)
	fmt.Fprintf(w, "%d CPUs, load average %s before measuring; %s; %s\n\n",
		info.cpus, cmp.Or(info.load, "unknown"), info.goVersion, info.wrk)
	fmt.Fprintln(w, "| endpoint | c | quire req/s | p50 | p99 | bare req/s | quire/bare (range) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, c := range cfg.conns {
		fmt.Fprintln(w, tableRow(c, byConns[c]))
	}
}

// tableRow summarises the rounds at one concurrency: medians, and the range of the ratio.
func tableRow(conns int, samples []sample) string {
	var qRPS, bRPS, ratios []float64
	var p50s, p99s []time.Duration
	for _, s := range samples {
		qRPS = append(qRPS, s.quire.rps)
		bRPS = append(bRPS, s.bare.rps)
		ratios = append(ratios, s.ratio())
		p50s = append(p50s, s.quire.p50)
		p99s = append(p99s, s.quire.p99)
	}
	return fmt.Sprintf("| `GET /v2/users/me` | %d | %s | %s | %s | %s | **%.2f** (%.2f–%.2f) |",
		conns, thousands(median(qRPS)), ms(median(p50s)), ms(median(p99s)), thousands(median(bRPS)),
		median(ratios), slices.Min(ratios), slices.Max(ratios))
}

// median is the middle value (the mean of the two middle ones for an even count).
func median[T float64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ms formats a latency in milliseconds with three decimals, e.g. 0.038 ms.
func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }

// thousands formats a rate as a whole number with comma separators, e.g. 21,984.
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// logRun prints one wrk run's figures (for --verbose).
func logRun(w io.Writer, round, conns int, name string, r wrkResult) {
	fmt.Fprintf(w, "  round %d c=%-3d %-5s %10s req/s  p50 %s  p99 %s\n", round, conns, name, thousands(r.rps), ms(r.p50), ms(r.p99))
}
