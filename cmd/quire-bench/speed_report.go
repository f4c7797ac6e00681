package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// speedRows are the table's rows: how each is labelled and its target, in the words.
var speedRows = []struct {
	name   string
	label  func(s speedSize) string
	target string
}{
	{"page", func(speedSize) string { return "`GET /v2/pages/:id` (a page under a top-level page)" }, "≥ 0.5× at c=16"},
	{"children", func(s speedSize) string {
		return fmt.Sprintf("`GET /v2/blocks/:id/children?page_size=100`, first page of a %s-paragraph page", thousands(float64(s.LongPage)))
	}, "≥ 0.15× at c=16"},
	{"query", func(s speedSize) string {
		return fmt.Sprintf("`POST /v2/databases/:id/query` `%s` on %s records with ten properties", speedQueryBody(), thousands(float64(s.Records)))
	}, "p50 ≤ 2.5 ms and ≥ 0.02× at c=16"},
	{"search", func(s speedSize) string {
		return fmt.Sprintf("`POST /v2/search` `{\"query\":WORD,\"page_size\":20}`, WORD in ~0.6%% of %s paragraphs", thousands(float64(s.Pages*speedParagraphs)))
	}, "p50 ≤ 3 ms"},
	{"append", func(speedSize) string { return "`PATCH /v2/blocks/:id/children` with 100 paragraphs on a fresh page" }, "p50 ≤ 5 ms"},
	{"seeding", func(s speedSize) string {
		return fmt.Sprintf("seeding %s records through `POST …/mutations` (batches of 100, %d at a time)", thousands(float64(s.Records)), seedWorkers)
	}, "≤ 20 s for 100,000 (≥ 5,000/s)"},
	{"indexing", func(s speedSize) string { return "semantic indexing of what was written" }, "≥ 300 chunks/s"},
}

// printSpeedReport writes the speed table: the columns of the issue for the first engine
// (SQLite when measured), every other engine's three figures in a column beside, then each
// engine's details.
func printSpeedReport(w io.Writer, res *results) {
	printRunHeads(w, res)
	sets := slices.Clone(res.Speed)
	slices.SortStableFunc(sets, func(a, b speedSet) int { return cmp.Compare(engineRank(a.Engine), engineRank(b.Engine)) })
	first := sets[0]
	fmt.Fprintln(w)
	head := "| scenario | c=1 p50 steady | c=16 ratio steady | while the indexer embeds what was just written | target |"
	sep := "|---|---|---|---|---|"
	for _, s := range sets[1:] {
		head += fmt.Sprintf(" %s: c=1 p50 · c=16 ratio · while indexing |", engineTitles[s.Engine])
		sep += "---|"
	}
	fmt.Fprintf(w, "%s (%s)\n\n%s\n%s\n", engineTitles[first.Engine], scaleNote(first.Size), head, sep)
	for _, r := range speedRows {
		cells := speedCells(first, r.name)
		line := fmt.Sprintf("| %s | %s | %s | %s | %s |", r.label(first.Size), cells[0], cells[1], cells[2], r.target)
		for _, s := range sets[1:] {
			c := speedCells(s, r.name)
			line += " " + strings.Join(slices.DeleteFunc(c[:], func(x string) bool { return x == "" }), " · ") + " |"
		}
		fmt.Fprintln(w, line)
	}
	for _, s := range sets {
		printSpeedDetails(w, s)
	}
}

// printRunHeads writes a header per run; runs started side by side in the same minute say the
// same, once.
func printRunHeads(w io.Writer, res *results) {
	printed := map[string]bool{}
	for _, ri := range res.Runs {
		head := fmt.Sprintf("quire-bench %s: %d rounds × %s per server, endpoint and concurrency, warm-up %s\n",
			ri.Start.UTC().Format("2006-01-02 15:04 MST"), ri.Rounds, ri.Duration, ri.Warmup) +
			fmt.Sprintf("quire serve --log-level %s; %d CPUs; %s; %s\n", ri.LogLevel, ri.CPUs, ri.GoVersion, ri.Loader)
		if !printed[head] {
			fmt.Fprint(w, head)
			printed[head] = true
		}
	}
}

func engineRank(e string) int { return map[string]int{engineSQLite: 0, enginePostgres: 1}[e] }

// scaleNote says what data the table is about.
func scaleNote(s speedSize) string {
	note := fmt.Sprintf("scale %g: %s records, %s pages of %d paragraphs, a %s-paragraph page", s.Scale, thousands(float64(s.Records)),
		thousands(float64(s.Pages)), speedParagraphs, thousands(float64(s.LongPage)))
	if s.Scale != 1 {
		note += "; a small-scale check, not the issue's sizes"
	}
	return note
}

// speedCells are one row's three figures on one engine: c=1 p50, c=16 ratio, while indexing.
func speedCells(s speedSet, name string) [3]string {
	switch name {
	case "seeding":
		p := s.RecordsSeed
		if len(s.RecordsEarlier) == 0 {
			return [3]string{fmt.Sprintf("%.1f s (%s/s)", p.WriteSecs, thousands(float64(p.Writes)/p.WriteSecs)), "", ""}
		}
		sp := seedingSpread(s)
		return [3]string{fmt.Sprintf("%.1f s (%s/s), median of %d seedings (%.1f–%.1f s)", sp.Median, thousands(float64(p.Writes)/sp.Median),
			sp.N, sp.Min, sp.Max), "", ""}
	case "indexing":
		return [3]string{fmt.Sprintf("%s records: %s; %s pages of %d paragraphs: %s", thousands(float64(s.RecordsSeed.Writes)),
			indexFigure(s.RecordsSeed), thousands(float64(s.CorpusSeed.Writes)), speedParagraphs, indexFigure(s.CorpusSeed)), "", ""}
	}
	var out [3]string
	c1, c16 := findRow(s.Steady, name, 1), findRow(s.Steady, name, 16)
	if c1 != nil {
		out[0] = ms(summarize(*c1).p50)
		if name == "append" {
			sp := p50Spread(*c1)
			out[0] += fmt.Sprintf(", median of %d rounds (%.3f–%.3f)", sp.N, sp.Min, sp.Max)
		}
	}
	if c16 != nil {
		sum := summarize(*c16)
		out[1] = fmt.Sprintf("%.4f× (%.4f–%.4f)", sum.ratio, sum.minRatio, sum.maxRatio)
		if name == "append" {
			out[1] += ", p50 " + ms(sum.p50)
		}
	}
	wr := findRow(s.While, name, 1)
	switch {
	case wr != nil && len(s.WhileSteady) > 0:
		sp := whileSpread(s, name)
		out[2] = fmt.Sprintf("%s; **%.2f×** the steady p50 just before, median of %d bursts (%.2f–%.2f×); queue %s",
			ms(summarize(*wr).p50), sp.Median, sp.N, sp.Min, sp.Max, queueNote(*wr))
	case wr != nil && c1 != nil: // saved before the repeats: against the steady rounds
		sum, steady := summarize(*wr), summarize(*c1)
		out[2] = fmt.Sprintf("%s (%.2f× steady; queue %s)", ms(sum.p50), float64(sum.p50)/float64(steady.p50), queueNote(*wr))
	}
	return out
}

// indexFigure is one phase's indexing: the time from its first write until the queue was empty,
// and the chunks the indexer embedded a second over it.
func indexFigure(p phase) string {
	return fmt.Sprintf("%.1f s, %s chunks, %.0f chunks/s", p.IndexSecs, thousands(float64(p.Chunks)), float64(p.Chunks)/p.IndexSecs)
}

// queueNote gives the queue's length before and after each round, and says so when it emptied.
func queueNote(r row) string {
	var parts []string
	empty := false
	for i := range r.QueueBefore {
		after := int64(0)
		if i < len(r.QueueAfter) {
			after = r.QueueAfter[i]
		}
		parts = append(parts, fmt.Sprintf("%d→%d", r.QueueBefore[i], after))
		empty = empty || after == 0
	}
	note := strings.Join(parts, ", ")
	if empty {
		note += "; EMPTIED during a round: not all of it ran while indexing"
	}
	return note
}

// findRow is the row of endpoint name at conns, or nil.
func findRow(rows []row, name string, conns int) *row {
	for i := range rows {
		if rows[i].Endpoint == name && rows[i].Conns == conns {
			return &rows[i]
		}
	}
	return nil
}

// printSpeedDetails writes one engine's figures in full and what its data held.
func printSpeedDetails(w io.Writer, s speedSet) {
	fmt.Fprintf(w, "\n%s, every run (medians over the rounds):\n\n", engineTitles[s.Engine])
	fmt.Fprintln(w, "| endpoint | c | quire req/s | p50 | p99 | answer | bare req/s | quire/bare (range) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range s.Steady {
		fmt.Fprintln(w, tableRow(r))
	}
	for _, r := range s.WhileSteady {
		fmt.Fprintln(w, strings.Replace(tableRow(r), "` |", "`, steady just before each burst |", 1))
	}
	for _, r := range s.While {
		fmt.Fprintln(w, strings.Replace(tableRow(r), "` |", "`, while indexing |", 1))
	}
	sd := s.Seed
	shares := make([]string, 0, len(sd.Words))
	for _, word := range sd.Words {
		shares = append(shares, fmt.Sprintf("%s %d", word, sd.WordParas[word]))
	}
	fmt.Fprintf(w, "\n- opt7 matches %s of %s records (%.2f%%, counted through the query endpoint)\n",
		thousands(float64(sd.Matches)), thousands(float64(s.Size.Records)), 100*float64(sd.Matches)/float64(s.Size.Records))
	if sd.FirstQuery > 0 {
		fmt.Fprintf(w, "- the query's first page, which builds the rows of Sel and Num (once per database): %.1f s\n", sd.FirstQuery)
	}
	fmt.Fprintf(w, "- WORDs and the paragraphs (of %s) that contain each: %s\n", thousands(float64(s.Size.Pages*speedParagraphs)), strings.Join(shares, ", "))
	for _, p := range []struct {
		what string
		p    phase
	}{{"records", s.RecordsSeed}, {"corpus pages", s.CorpusSeed}} {
		fmt.Fprintf(w, "- %s %s written in %.1f s (%s chunks embedded meanwhile); queue empty %.1f s after the first write; %s chunks embedded, %s reused\n",
			thousands(float64(p.p.Writes)), p.what, p.p.WriteSecs, thousands(float64(p.p.WriteChunks)), p.p.IndexSecs, thousands(float64(p.p.Chunks)), thousands(float64(p.p.Reused)))
	}
	if len(s.RecordsEarlier) > 0 {
		var secs []string
		for _, p := range append(slices.Clone(s.RecordsEarlier), s.RecordsSeed) {
			secs = append(secs, fmt.Sprintf("%.1f s (%s chunks embedded meanwhile)", p.WriteSecs, thousands(float64(p.WriteChunks))))
		}
		fmt.Fprintf(w, "- the records seeded %d times, each into a fresh store after its long page was indexed, the last kept for the rest: %s\n",
			len(secs), strings.Join(secs, ", "))
	}
	if len(s.RevisedQueues) > 0 {
		var queued []string
		for _, n := range s.RevisedQueues {
			queued = append(queued, thousands(float64(n)))
		}
		fmt.Fprintf(w, "- while indexing: %d bursts of revisions, each of about %s of the %s corpus pages (other pages each time), made once the queue was empty; nodes queued after each: %s\n",
			len(queued), thousands(float64(s.Size.Pages/len(queued))), thousands(float64(s.Size.Pages)), strings.Join(queued, ", "))
		for _, name := range []string{"query", "search"} {
			fmt.Fprintf(w, "- %s's p50 just before each burst → while indexing: %s\n", name, burstPairs(s, name))
		}
	} else {
		fmt.Fprintf(w, "- while indexing: %s nodes queued after revising the corpus pages\n", thousands(float64(s.Revised)))
	}
	printUpkeepNotes(w, s)
	fmt.Fprintf(w, "- load average %s before the steady runs, %s after the last\n", cmp.Or(s.Load, "unknown"), cmp.Or(s.LoadAfter, "unknown"))
}

// burstPairs lists, for each burst of revisions, endpoint name's steady p50 just before it and
// its p50 while indexing, with their ratio.
func burstPairs(s speedSet, name string) string {
	wr, st := findRow(s.While, name, 1), findRow(s.WhileSteady, name, 1)
	if wr == nil || st == nil {
		return "not measured"
	}
	var pairs []string
	for k := range min(len(wr.Quire), len(st.Quire)) {
		b, a := st.Quire[k].P50, wr.Quire[k].P50
		pair := fmt.Sprintf("%s → %s", ms(b), ms(a))
		if b > 0 {
			pair += fmt.Sprintf(" (%.2f×)", float64(a)/float64(b))
		}
		pairs = append(pairs, pair)
	}
	return strings.Join(pairs, ", ")
}
