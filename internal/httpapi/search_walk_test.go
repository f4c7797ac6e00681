package httpapi

import (
	"context"
	"net/http"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSearch_BoundedWalk: a two-character term in more entries than the index is read for
// (2,000) is not listed from it (on PostgreSQL never), so its pages are walked; past about
// 20,000 entries a request answers what it found, possibly nothing, with has_more and a cursor
// (docs/api.md). 23,000 newer blocks without the term come before the one older page that holds
// it 2,100 times: the first page is empty and has more, following the cursors finds that page
// exactly once, and a page in trash holding the term never appears.
func TestSearch_BoundedWalk(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		match := e.mkPage(t, e.full, wsParent, "Old notes")
		markers := make([]any, 100)
		for i := range markers {
			markers[i] = para("the zq marker")
		}
		for range 21 { // at most 100 children an append
			e.appendKids(t, match, markers...)
		}
		trashed := e.mkPage(t, e.full, wsParent, "Trashed notes")
		e.appendKids(t, trashed, para("zq in trash"))
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+trashed, e.full, nil), 200)
		tmpl := e.mkPage(t, e.full, wsParent, "Template")
		e.appendKids(t, tmpl, para("filler"))
		const pages, perPage = 230, 100
		err := st.InTx(context.Background(), func(tx *store.Tx) error {
			// Clones of the template, edited after the two pages above, as the benchmark makes.
			if err := tx.Exec(context.Background(), `WITH RECURSIVE seq (i) AS (SELECT CAST(1 AS BIGINT) UNION ALL SELECT i + 1 FROM seq WHERE i < $2)
				INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, parent_id, position, title, title_plain,
					properties, description, icon, cover, is_inline, in_trash, trashed_under, version, created_ms, created_by, edited_ms, edited_by)
				SELECT 'wp' || CAST(seq.i AS TEXT), t.workspace_id, t.object, t.page_type, t.parent_type, t.parent_id, t.position || CAST(seq.i AS TEXT), t.title, 'Filler ' || CAST(seq.i AS TEXT),
					t.properties, t.description, t.icon, t.cover, t.is_inline, t.in_trash, t.trashed_under, 1, t.created_ms + seq.i, t.created_by, t.edited_ms + seq.i, t.edited_by
				FROM seq, nodes t WHERE t.id = $1`, tmpl, pages); err != nil {
				return err
			}
			if err := tx.Exec(context.Background(), `WITH RECURSIVE seq (j) AS (SELECT CAST(0 AS BIGINT) UNION ALL SELECT j + 1 FROM seq WHERE j + 1 < $2)
				INSERT INTO blocks (id, workspace_id, page_id, parent_id, position, type, content, in_trash, version, created_ms, created_by, edited_ms, edited_by)
				SELECT 'wb' || CAST(seq.j AS TEXT), t.workspace_id, 'wp' || CAST(seq.j / $3 + 1 AS TEXT), 'wp' || CAST(seq.j / $3 + 1 AS TEXT),
					t.position || CAST(seq.j AS TEXT), t.type, t.content, FALSE, 1, t.created_ms, t.created_by, t.edited_ms, t.edited_by
				FROM seq, blocks t WHERE t.page_id = $1`, tmpl, pages*perPage, perPage); err != nil {
				return err
			}
			return tx.IndexBlocks(context.Background()) // SQLite: no trigger indexes a block a plain INSERT writes
		})
		if err != nil {
			t.Fatal(err)
		}
		// The bounded walk is the trigram index's: the entries go into SQLite's indexes now, not
		// when the upkeep loop gets to them (entries above the mark are read whole).
		if _, err := st.IndexSearch(context.Background()); err != nil {
			t.Fatal(err)
		}
		var found []string
		body := map[string]any{"query": "zq", "page_size": 5}
		requests := 0
		for {
			r := e.do(http.MethodPost, "/v2/search", e.full, body)
			wantOK(t, r, 200)
			requests++
			items := r.body["results"].([]any)
			for _, it := range items {
				found = append(found, it.(map[string]any)["id"].(string))
			}
			if requests == 1 && (len(items) != 0 || r.body["has_more"] != true) {
				t.Fatalf("first page: %d results, has_more %v; want none yet, and more", len(items), r.body["has_more"])
			}
			if r.body["has_more"] != true {
				break
			}
			if requests > 10 {
				t.Fatal("the cursors do not end")
			}
			body["start_cursor"] = r.body["next_cursor"]
		}
		if len(found) != 1 || found[0] != match {
			t.Errorf("found %v over %d requests; want only %s", found, requests, match)
		}
	})
}
