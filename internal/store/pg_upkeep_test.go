package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestPGUpkeep_MergesPending (issue 15): a write's trigram entries are searchable at once on
// both engines, and on PostgreSQL the upkeep merges the GIN indexes' pending lists shortly
// after the write (pg_upkeep.go), so that a later search does not read them entry by entry:
// once it has run, nothing is left pending in either index. The write is far below the lists'
// 1 MB, so no insert merged it (tried: without the loop, 7 pages of search_docs_lower and 4 of
// nodes_title_trgm were still pending).
func TestPGUpkeep_MergesPending(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		na, da := []any{ws.ID}, []any{}
		var nodes, docs []string
		for i := range 40 {
			id, n, d := fmt.Sprintf("p%d", i), len(na), len(da)
			text := fmt.Sprintf("tuvaki %d the pending entry of page %d", i, i)
			na = append(na, id, "page "+text, i)
			nodes = append(nodes, fmt.Sprintf("($%d, $1, 'page', 'page', 'workspace', 'a0', '[]', $%d, '{}', '[]', $%d, 'u', $%d, 'u')", n+1, n+2, n+3, n+3))
			da = append(da, id+"e", id, text)
			docs = append(docs, fmt.Sprintf("($%d, $%d, 'body', $%d)", d+1, d+2, d+3))
		}
		var merges int64
		if s.Engine() == store.Postgres {
			merges = s.PendingMergesForTest()
		}
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.ExecForTest(ctx, `INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, position, title,
				title_plain, properties, description, created_ms, created_by, edited_ms, edited_by) VALUES `+strings.Join(nodes, ", "), na...); err != nil {
				return err
			}
			return tx.ExecForTest(ctx, `INSERT INTO search_docs (ref, node_id, field, text) VALUES `+strings.Join(docs, ", "), da...)
		})
		res, _, err := s.Search(ctx, search.Query{Workspace: ws.ID, Terms: []string{"tuvaki"}, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res {
			got = append(got, r.Node.ID)
		}
		if want := []string{"p39", "p38", "p37"}; !slices.Equal(got, want) {
			t.Errorf("search right after the write = %v, want %v", got, want)
		}
		if s.Engine() != store.Postgres {
			return
		}
		for deadline := time.Now().Add(10 * time.Second); s.PendingMergesForTest() == merges; {
			if time.Now().After(deadline) {
				t.Fatal("no merge of the pending lists within 10 s of the write")
			}
			time.Sleep(10 * time.Millisecond)
		}
		for _, index := range []string{"search_docs_lower", "nodes_title_trgm"} {
			left, err := s.RowsForTest(ctx, `SELECT gin_clean_pending_list('`+index+`'::regclass)`)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) != 1 || left[0] != "0" {
				t.Errorf("%s: %v pages still pending after the upkeep's merge, want 0", index, left)
			}
		}
	})
}
