package store_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSearchSamples_KeptWhileTheIndexesStay (issue 15): on SQLite a search samples a word's
// trigrams once; the next search for it, the indexes unchanged, samples nothing and answers the
// same. An entry written above the mark leaves the indexes (and the samples) as they were and
// is found by the tail read; once the upkeep indexes it, or an indexed entry is deleted, the
// next search samples again. The statement that reads the indexes' state seeks every table by
// its key. PostgreSQL samples nothing and answers the same throughout.
func TestSearchSamples_KeptWhileTheIndexesStay(t *testing.T) {
	store.SkipBackgroundIndexForTest(t) // the test says when the entries are indexed
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		seedWordPages(t, s, ws.ID)
		sqlite := s.Engine() == store.SQLite
		// state is the blocks' index's structure record, which a merge by the upkeep rewrites
		// (the samples then are taken again): only a search after one without a merge between
		// must find them kept.
		state := func() string {
			if !sqlite {
				return ""
			}
			rows, err := s.RowsForTest(ctx, `SELECT hex(block) FROM search_fts_data WHERE id = 10`)
			if err != nil {
				t.Fatal(err)
			}
			return rows[0]
		}
		if sqlite {
			// The upkeep merges the seeded segments for a while (longer on a loaded machine).
			prev := state()
			for deadline := time.Now().Add(time.Minute); ; prev = state() {
				time.Sleep(time.Second)
				if state() == prev || time.Now().After(deadline) {
					break
				}
			}
		}
		last := ""
		// find answers kovila's first ten pages and whether the trigrams were sampled.
		find := func(step string) (ids []string, sampled bool) {
			t.Helper()
			q := search.Query{Workspace: ws.ID, Terms: []string{"kovila"}, Limit: 10, Tuning: search.Tuning{Walk: 1, Probe: -1}}
			res, resume, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) {
				sampled = sampled || strings.Contains(query, "FROM search_title_fts WHERE search_title_fts MATCH")
				if strings.HasPrefix(query, "SELECT (SELECT COALESCE(MAX(rid), 0) FROM search_docs)") {
					if plan := explainPlan(t, s, query, args); strings.Contains(plan, "SCAN search") {
						t.Errorf("%s: the indexes' state is read by a scan:\n%s", step, plan)
					}
				}
			})
			if err != nil || resume != nil {
				t.Fatalf("%s: %v (resume %v)", step, err, resume)
			}
			for _, r := range res {
				ids = append(ids, r.Node.ID)
			}
			return ids, sampled
		}
		// kovila is on every thirtieth page, p0 … p570.
		want := []string{"p570", "p540", "p510", "p480", "p450", "p420", "p390", "p360", "p330", "p300"}
		for _, step := range []struct {
			name    string
			write   string // run before the search, then the upkeep indexes when index is set
			index   bool
			want    []string
			sampled bool // on SQLite
		}{
			{"first", "", false, want, true},
			{"again", "", false, want, false},
			{"written, not indexed", `INSERT INTO search_docs (ref, node_id, field, text) VALUES ('new', 'p599', 'body', 'a kovila')`,
				false, append([]string{"p599"}, want[:9]...), false},
			{"indexed", "", true, append([]string{"p599"}, want[:9]...), true},
			{"again after indexing", "", false, append([]string{"p599"}, want[:9]...), false},
			{"indexed entry deleted", `DELETE FROM search_docs WHERE ref = 'new'`, false, want, true},
		} {
			if step.write != "" {
				mustTx(t, s, func(tx *store.Tx) error { return tx.ExecForTest(ctx, step.write) })
			}
			if step.index {
				if _, err := s.IndexSearch(ctx); err != nil {
					t.Fatal(err)
				}
			}
			before := state()
			got, sampled := find(step.name)
			if !slices.Equal(got, step.want) {
				t.Errorf("%s: %v, want %v", step.name, got, step.want)
			}
			merged := before != last && !step.sampled
			last = before
			if merged {
				t.Logf("%s: the upkeep merged the index since the last search", step.name)
			} else if sampled != (sqlite && step.sampled) {
				t.Errorf("%s: trigrams sampled %v, want %v", step.name, sampled, sqlite && step.sampled)
			}
		}
	})
}
