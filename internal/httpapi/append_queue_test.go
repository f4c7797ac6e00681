package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestAppend_PastTheWindowQueuesNothing: an append at the end of a page that already holds the
// 200 entries the indexer reads of it leaves the embedding queue as it found it, and what the
// indexer reads of the page is indeed unchanged; every write that may change those entries
// still queues the page.
func TestAppend_PastTheWindowQueuesNothing(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		e := newEnv(t, st)
		// page makes a page of n paragraphs (and dividers, which have no entry, after each of the
		// first d of them), its queue drained.
		page := func(title string, n, d int) (id string, blocks []string) {
			id = e.mkPage(t, e.full, wsParent, title)
			var kids []any
			for i := range n {
				kids = append(kids, para(title+" entry "+strconv.Itoa(i)+" of the lighthouse."))
				if i < d {
					kids = append(kids, blk("divider", map[string]any{}))
				}
			}
			for i := 0; i < len(kids); i += 100 {
				for _, b := range e.appendKids(t, id, kids[i:min(i+100, len(kids))]...) {
					blocks = append(blocks, b["id"].(string))
				}
			}
			drain(t, e.svc)
			return id, blocks
		}
		queued := func(t *testing.T) []string {
			t.Helper()
			rows, err := st.RowsForTest(ctx, `SELECT node_id || '|' || queued_ms || '|' || attempts || '|' || not_before
				FROM embed_queue_folded ORDER BY node_id`)
			if err != nil {
				t.Fatal(err)
			}
			return rows
		}
		window := func(t *testing.T, id string) store.EmbedSource {
			t.Helper()
			src, ok, err := st.EmbedSource(ctx, id, 200)
			if err != nil || !ok {
				t.Fatalf("EmbedSource(%s) = %v, %v", id, ok, err)
			}
			return src
		}
		sameWindow := func(a, b store.EmbedSource) bool {
			return a.Title == b.Title && slices.Equal(a.Body, b.Body) && slices.Equal(a.BodyBlocks, b.BodyBlocks)
		}
		patch := func(t *testing.T, id string, body map[string]any) {
			t.Helper()
			wantOK(t, e.do(http.MethodPatch, "/v2/blocks/"+id+"/children", e.full, body), 200)
		}

		full, fullBlocks := page("Full", 200, 0)
		short, _ := page("Short", 199, 0)
		gaps, _ := page("Gaps", 190, 20) // 210 blocks, 190 entries

		for _, tc := range []struct {
			name  string
			page  string
			body  map[string]any
			quiet bool // the queue stays as it was, and so does what the indexer reads
		}{
			{"at the end of 200 entries", full, map[string]any{"children": []any{para("A volcano past the window.")}}, true},
			{"nested, at the end", full, map[string]any{"children": []any{toggle("Outer", para("Inner, deeper still."))}}, true},
			{"position end", full, map[string]any{"children": []any{para("At the end again.")}, "position": map[string]any{"type": "end"}}, true},
			{"at the end of 199 entries", short, map[string]any{"children": []any{para("The 200th entry.")}}, false},
			{"at the end of 190 entries among 210 blocks", gaps, map[string]any{"children": []any{para("Counted by entries.")}}, false},
			{"into a block in the window", fullBlocks[3], map[string]any{"children": []any{para("Within the window.")}}, false},
			{"after a block in the window", full, map[string]any{"children": []any{para("Placed early.")}, "after": fullBlocks[0]}, false},
			{"at the start", full, map[string]any{"children": []any{para("First of all.")}, "position": map[string]any{"type": "start"}}, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				drain(t, e.svc)
				var before store.EmbedSource
				if tc.quiet {
					before = window(t, tc.page)
				}
				patch(t, tc.page, tc.body)
				got := queued(t)
				if tc.quiet && len(got) != 0 {
					t.Fatalf("queue %q after the append, want it empty", got)
				}
				if !tc.quiet && len(got) != 1 {
					t.Fatalf("queue %q after the append, want the page", got)
				}
				if tc.quiet && !sameWindow(before, window(t, tc.page)) {
					t.Fatal("what the indexer reads changed, yet the page was not queued")
				}
			})
		}

		t.Run("a trashed entry brings the end into the window", func(t *testing.T) {
			id, blocks := page("Trash", 200, 0)
			wantOK(t, e.do(http.MethodPatch, "/v2/blocks/"+blocks[10], e.full, map[string]any{"in_trash": true}), 200)
			if got := queued(t); len(got) != 1 {
				t.Fatalf("queue %q after the trash, want the page", got)
			}
			drain(t, e.svc)
			patch(t, id, map[string]any{"children": []any{para("Now the 200th entry.")}})
			if got := queued(t); len(got) != 1 {
				t.Fatalf("queue %q after the append, want the page", got)
			}
		})

		t.Run("a queued page stays queued as it was", func(t *testing.T) {
			drain(t, e.svc)
			// A rename queues the page; a claim leases it; the append must leave both as they are.
			wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+full, e.full, map[string]any{"properties": titleOf("Full, renamed")}), 200)
			due := queued(t)
			patch(t, full, map[string]any{"children": []any{para("Past the window, while queued.")}})
			if got := queued(t); !slices.Equal(got, due) || len(got) != 1 {
				t.Fatalf("queue %q after the append, want %q", got, due)
			}
			jobs, err := st.ClaimEmbedJobs(ctx, 1, 60_000, 10)
			if err != nil || len(jobs) != 1 {
				t.Fatalf("claim: %+v, %v", jobs, err)
			}
			leased := queued(t)
			patch(t, full, map[string]any{"children": []any{para("Past the window, while claimed.")}})
			if got := queued(t); !slices.Equal(got, leased) {
				t.Fatalf("queue %q after the append, want %q", got, leased)
			}
		})
	})
}
