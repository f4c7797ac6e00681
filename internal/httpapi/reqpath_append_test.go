package httpapi

import (
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
)

// TestAppendStatements counts the statements of an append up to its first INSERT, on both
// engines: an append to a page reads the token, its reach and the page in one statement (the
// guard's joined read, as a page GET and a page of children), so the transaction's first read
// follows it; nothing reads the token or the page again. An append under a block finds no node
// in that read and reads the token, the block, its page's reach and the page as before. Refusals
// keep their answers: out of reach 404, a page in trash 400 archived at block_id.
func TestAppendStatements(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			rec := &statements{}
			cfg := engineConfig(t, engine)
			cfg.Observe = rec.observe
			e := newEnv(t, openStore(t, cfg))
			top := e.mkPage(t, e.full, wsParent, "Top", map[string]any{"children": []any{para("one")}})
			child := e.mkPage(t, e.full, pageParent(top), "Child")
			trashed := e.mkPage(t, e.full, pageParent(top), "Trashed")
			if r := e.do("PATCH", "/v2/pages/"+trashed, e.full, map[string]any{"in_trash": true}); r.status != 200 {
				t.Fatalf("trash: %d %s", r.status, r.raw)
			}
			kids := e.do("GET", "/v2/blocks/"+top+"/children", e.full, nil)
			block := kids.body["results"].([]any)[0].(map[string]any)["id"].(string)
			granted := e.token(quire.AllScopes, false, top)
			other := e.token(quire.AllScopes, false, e.mkPage(t, e.full, wsParent, "Elsewhere"))
			body := map[string]any{"children": []any{para("a"), para("b")}}
			const insert = "INSERT INTO" // SQLite writes the search entries first, PostgreSQL the blocks
			// An append at the end of a page reads, on SQLite, its entry count before it writes
			// (store.BeginAppend), not its queue row (since 00039 an append past the window writes
			// none); PostgreSQL reads nothing there.
			atEnd := []string{joined, "MAX(position)", insert}
			if engine == "sqlite" {
				atEnd = []string{joined, "MAX(position)", "field = 'body' LIMIT", insert}
			}
			for _, tc := range []struct {
				name, id, token string
				status          int
				want            []string // a word of each statement up to the first INSERT
			}{
				{"page, workspace-scoped", child, e.full, 200, atEnd},
				{"page, granted", child, granted, 200, atEnd},
				{"block", block, e.full, 200, []string{joined, "FROM tokens", "FROM blocks", "FROM nodes", "FROM nodes", "MAX(position)", insert}},
				{"page out of reach", child, other, 404, []string{joined, "FROM tokens", "FROM blocks"}},
				{"page in trash", trashed, e.full, 400, atEnd},
			} {
				t.Run(tc.name, func(t *testing.T) {
					var r *response
					seen := rec.during(func() { r = e.do("PATCH", "/v2/blocks/"+tc.id+"/children", tc.token, body) })
					if r.status != tc.status {
						t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.raw)
					}
					if tc.status == 400 && (r.body["code"] != quire.CodeValidation || !strings.Contains(string(r.raw), `"block_id"`)) {
						t.Fatalf("refusal %s, want validation_error at block_id", r.raw)
					}
					var got []string
					for _, s := range seen {
						if upkeepStatement(s) {
							continue
						}
						got = append(got, s)
						if strings.Contains(s, insert) {
							break
						}
					}
					ok := len(got) == len(tc.want)
					for i := 0; ok && i < len(got); i++ {
						ok = strings.Contains(got[i], tc.want[i])
					}
					if !ok {
						t.Errorf("%d statements, want %d (%s):\n%s", len(got), len(tc.want), strings.Join(tc.want, ", "),
							strings.Join(numbered(got), "\n"))
					}
				})
			}
		})
	}
}

// upkeepStatement reports whether q is one of SQLite's upkeep loop's statements (indexing the
// trigram tail behind its mark, merging, checkpointing): the loop runs beside requests on its own
// schedule, so on a loaded machine one may fall between a request's statements; it is no part
// of the append.
func upkeepStatement(q string) bool {
	for _, m := range []string{"search_fts", "search_title_fts", "wal_checkpoint", "GROUP BY segid", "total_changes()", "sqlite_sequence"} {
		if strings.Contains(q, m) {
			return true
		}
	}
	return false
}
