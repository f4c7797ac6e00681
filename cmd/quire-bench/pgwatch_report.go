package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// printUpkeepNotes adds what PostgreSQL was doing to the report (runs saved with pgWatch's
// rounds): the waits of the records' seeding, and each round of the table that had upkeep (an
// autovacuum, an analyze, a pending-list merge) running beside it, with the CPU the cluster's
// other processes took meanwhile. A slow round is then read with what ran beside it.
func printUpkeepNotes(w io.Writer, s speedSet) {
	if db := s.RecordsSeed.DB; db != nil && len(db.Waits) > 0 {
		fmt.Fprintf(w, "- the kept store's seeding, its backends sampled %d times: %s\n", db.Samples, countsText(db.Waits))
	}
	for _, part := range []struct {
		what string
		rows []row
	}{{"steady", s.Steady}, {"steady just before a burst", s.WhileSteady}, {"while indexing", s.While}} {
		for _, r := range part.rows {
			for k, db := range r.DB {
				done := upkeepDone(db)
				if db == nil || len(db.Upkeep)+len(done) == 0 || k >= len(r.Quire) {
					continue
				}
				beside := strings.Join(append(done, upkeepText(db.Upkeep)), ", ")
				if len(db.Upkeep) == 0 {
					beside = strings.Join(done, ", ")
				}
				others := ""
				if n := float64(db.Requests); n > 0 && db.ClusterCPU >= 0 && db.ClientCPU >= 0 {
					others = fmt.Sprintf("; the cluster's other processes %.2f ms of CPU a request", (db.ClusterCPU-db.ClientCPU)/n)
				}
				fmt.Fprintf(w, "- %s c=%d, %s, round %d: p50 %s beside %s (of %d samples)%s\n",
					r.Endpoint, r.Conns, part.what, k+1, ms(r.Quire[k].P50), beside, db.Samples, others)
			}
		}
	}
}

// upkeepDone lists the tables whose vacuum or analyze counts rose during the round (a run
// that began or ended between two samples shows only here).
func upkeepDone(db *dbRound) []string {
	if db == nil {
		return nil
	}
	var out []string
	for _, t := range db.Tables {
		var did []string
		if n := t.Autovacuums + t.Vacuums; n > 0 {
			did = append(did, "vacuumed")
		}
		if n := t.Autoanalyzes + t.Analyzes; n > 0 {
			did = append(did, "analyzed")
		}
		if len(did) > 0 {
			out = append(out, t.Table+" "+strings.Join(did, " and "))
		}
	}
	return out
}

// upkeepText is the maintenance seen, the most often seen first, each query cut short.
func upkeepText(m map[string]int) string {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int { return m[b] - m[a] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		q := k
		if len(q) > 60 {
			q = q[:60] + "…"
		}
		parts[i] = fmt.Sprintf("`%s` in %d", strings.ReplaceAll(q, "`", "'"), m[k])
	}
	return strings.Join(parts, ", ")
}
