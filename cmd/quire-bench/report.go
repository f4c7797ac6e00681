package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"
)

// engineTitles name the engines in the report.
var engineTitles = map[string]string{engineSQLite: "SQLite", enginePostgres: "PostgreSQL"}

// printReport writes a header per run and, per engine, a Markdown table with a row per store
// size, endpoint and concurrency, followed by how each size was seeded.
func printReport(w io.Writer, res *results) {
	printRunHeads(w, res)
	withBlocks := slices.ContainsFunc(res.Sets, func(s sizeSet) bool { return s.Blocks > 0 })
	for _, eng := range []string{engineSQLite, enginePostgres} {
		sets := slices.DeleteFunc(slices.Clone(res.Sets), func(s sizeSet) bool { return s.Engine != eng })
		if len(sets) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s store\n\n", engineTitles[eng])
		if withBlocks {
			fmt.Fprint(w, "| blocks ")
		}
		fmt.Fprintln(w, "| endpoint | c | quire req/s | p50 | p99 | answer | bare req/s | quire/bare (range) |")
		if withBlocks {
			fmt.Fprint(w, "|---")
		}
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
		for _, set := range sets {
			for _, r := range set.Rows {
				if withBlocks {
					fmt.Fprintf(w, "| %s ", thousands(float64(set.Blocks)))
				}
				fmt.Fprintln(w, tableRow(r))
			}
		}
		fmt.Fprintln(w)
		for _, set := range sets {
			fmt.Fprintln(w, seedLine(set))
		}
	}
}

// seedLine says what one size's store held and how busy the machine was.
func seedLine(s sizeSet) string {
	head := fmt.Sprintf("- %s blocks", thousands(float64(s.Blocks)))
	if s.Blocks > 0 {
		head += fmt.Sprintf(": %s content pages, %s records, %d mind maps (seeded in %.0f s); %s chunks embedded (%s of the content pages, every other page, record and mind map), queue empty %.0f s after start",
			thousands(float64(s.Seed.NPages)), thousands(float64(s.Seed.Records)), s.Seed.MindMaps, s.Seed.SeedSecs,
			thousands(float64(s.Chunks)), thousands(float64(s.Seed.Embedded)), s.DrainSecs)
	}
	return head + fmt.Sprintf("; load average %s before measuring, %s after", cmp.Or(s.Load, "unknown"), cmp.Or(s.LoadAfter, "unknown"))
}

// summary is the medians over the rounds of one row.
type summary struct {
	rps, bareRPS, ratio, minRatio, maxRatio, bytes float64
	p50, p99                                       time.Duration
}

func summarize(r row) summary {
	var qRPS, bRPS, ratios, bytes []float64
	var p50s, p99s []time.Duration
	for i := range r.Quire {
		if r.Quire[i].RPS == 0 || r.Bare[i].RPS == 0 {
			continue // a run in which nothing finished (see errNoneFinished)
		}
		qRPS = append(qRPS, r.Quire[i].RPS)
		bRPS = append(bRPS, r.Bare[i].RPS)
		ratios = append(ratios, r.Quire[i].RPS/r.Bare[i].RPS)
		bytes = append(bytes, r.Quire[i].Bytes)
		p50s = append(p50s, r.Quire[i].P50)
		p99s = append(p99s, r.Quire[i].P99)
	}
	if len(ratios) == 0 {
		return summary{}
	}
	return summary{rps: median(qRPS), bareRPS: median(bRPS), ratio: median(ratios), minRatio: slices.Min(ratios),
		maxRatio: slices.Max(ratios), bytes: median(bytes), p50: median(p50s), p99: median(p99s)}
}

// tableRow summarises the rounds of one row: medians, and the range of the ratio.
func tableRow(r row) string {
	s := summarize(r)
	if s.rps == 0 {
		return fmt.Sprintf("| `%s` | %d | no request finished within a run | | | | | |", endpointLabels[r.Endpoint], r.Conns)
	}
	return fmt.Sprintf("| `%s` | %d | %s | %s | %s | %s | %s | **%.2f** (%.2f–%.2f) |",
		endpointLabels[r.Endpoint], r.Conns, thousands(s.rps), ms(s.p50), ms(s.p99), size(s.bytes), thousands(s.bareRPS),
		s.ratio, s.minRatio, s.maxRatio)
}

// size formats a mean answer size, headers included.
func size(b float64) string {
	if b >= 10<<10 {
		return fmt.Sprintf("%.0f KB", b/1024)
	}
	return fmt.Sprintf("%.0f B", b)
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

// logRun prints one load run's figures (for --verbose).
func logRun(w io.Writer, round int, e string, conns int, name string, r wrkResult) {
	fmt.Fprintf(w, "  round %d %-8s c=%-3d %-5s %10s req/s  p50 %s  p99 %s\n", round, e, conns, name, thousands(r.rps), ms(r.p50), ms(r.p99))
}
