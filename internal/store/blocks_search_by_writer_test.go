package store_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// searchByWriter is the migration after which PostgreSQL's statement trigger on new blocks
// skips those whose entries the store's INSERT wrote.
const searchByWriter = 40

// TestBlockTextPostgres_MatchesTrigger checks that whatever text search.BlockTextPostgres reads
// is exactly what quire_content_text computes on PostgreSQL, on the content of every block
// type Quire writes (which Go must read, or appends lose the gain), on the shapes of
// TestContentTextUnchanged, and on 2,000 random JSON documents built from the keys that
// matter (plain_text, expression, keys jsonb reorders) and values of every kind.
func TestBlockTextPostgres_MatchesTrigger(t *testing.T) {
	db := postgresDB(t)
	rt := blocks.RichText{
		blocks.NewText("Plain \"quoted\" 東京 \u2028 tab\t", blocks.Annotations{Bold: true}, "https://example.com"),
		blocks.NewText("second", blocks.Annotations{}, ""),
	}
	var canonical []string
	for _, b := range []*blocks.Block{
		{Type: "paragraph", Content: blocks.Content{RichText: rt}},
		{Type: "code", Content: blocks.Content{RichText: rt, Caption: rt[1:], Language: "go"}},
		{Type: "heading_2", Content: blocks.Content{RichText: rt[:1]}},
		{Type: "equation", Content: blocks.Content{Expression: `\frac{a}{b} "x"`}},
		{Type: "table_row", Content: blocks.Content{Cells: []blocks.RichText{rt, rt[1:], nil}}},
		{Type: "divider"},
	} {
		canonical = append(canonical, string(blocks.MarshalContent(b)))
	}
	shapes := []string{
		`{"rich_text":[{"type":"equation","equation":{"expression":"x^2"},"plain_text":"x^2"}]}`,
		`{"caption":[{"plain_text":"cap"}],"rich_text":[{"plain_text":"code"}],"language":"go"}`,
		`{"plain_text":"both","expression":"expr"}`,
		`{"plain_text":null,"expression":"only the expression"}`,
		`{"expression":7,"plain_text":"a string plain_text"}`,
		`{"plain_text":{"plain_text":"inner"},"zz":[{"expression":"e1"},[{"plain_text":"deep"}]]}`,
		`{"zzzz":{"plain_text":"long key"},"a":{"plain_text":"short key"},"bb":[{"plain_text":"mid"}]}`,
		`{"b":{"plain_text":"b"},"a":{"plain_text":"a"},"é":{"plain_text":"two bytes"},"ab":{"plain_text":"ab"}}`,
		`{"rich_text":[{"plain_text":""},{"plain_text":""}]}`,
		`{"plain\u005ftext":"escaped key","n":[1,-0.5,2e10,-3E-2,true,false,null]}`,
		`{"rich_text":[{"plain_text":"tab\tnew\nline \"q\" \\ \/ \u00e9 \ud83d\ude00"}]}`,
		` { "plain_text" : "spaces" } `,
		`{"rich_text":[]}`, `{}`, `[]`, `"plain_text"`, `null`, `12`,
		`[{"plain_text":"top"},{"plain_text":"array"}]`,
		// Left to the trigger: a repeated key, a plain_text that is not a string, a NUL.
		`{"plain_text":"first","plain_text":"last"}`, `{"plain_text":7,"expression":"e"}`,
		`{"plain_text":null,"expression":"e","x":{"plain_text":false}}`, `{"plain_text":"a\u0000b"}`,
	}
	r := rand.New(rand.NewPCG(1, 2))
	var random []string
	for range 2000 {
		random = append(random, randomJSON(r, 0))
	}
	read := 0
	for _, set := range [][]string{canonical, shapes, random} {
		for _, content := range set {
			got, ok := search.BlockTextPostgres([]byte(content))
			if !ok {
				continue
			}
			read++
			var want string
			if err := db.QueryRow(`SELECT quire_content_text($1)`, content).Scan(&want); err != nil {
				t.Fatalf("Go read %q from %s; PostgreSQL refuses it: %v", got, content, err)
			}
			if got != want {
				t.Errorf("text of %s: Go %q, PostgreSQL %q", content, got, want)
			}
		}
	}
	for _, content := range canonical {
		if _, ok := search.BlockTextPostgres([]byte(content)); !ok {
			t.Errorf("Go leaves %s, content Quire writes, to the trigger", content)
		}
	}
	for _, content := range shapes[len(shapes)-4:] {
		if got, ok := search.BlockTextPostgres([]byte(content)); ok {
			t.Errorf("Go reads %q from %s; it must leave it to the trigger", got, content)
		}
	}
	if read < 1500 {
		t.Errorf("Go read only %d of %d documents; the comparison covers too little", read, len(canonical)+len(shapes)+len(random))
	}
}

// randomJSON is a JSON value of at most 4 levels whose objects use keys that the text reading
// treats specially or that jsonb reorders.
func randomJSON(r *rand.Rand, depth int) string {
	keys := []string{"plain_text", "expression", "a", "bb", "zz", "rich_text", "é", "equation", "plain_texts"}
	strs := []string{`""`, `"x"`, `"two words"`, `"é \"q\" \\ \n"`, `"\u00e9\ud83d\ude00"`, `"東京"`}
	switch k := r.IntN(10); {
	case depth < 4 && k < 4:
		var members []string
		seen := map[string]bool{}
		for range r.IntN(4) {
			key := keys[r.IntN(len(keys))]
			if seen[key] {
				continue
			}
			seen[key] = true
			members = append(members, fmt.Sprintf("%q:%s", key, randomJSON(r, depth+1)))
		}
		return "{" + strings.Join(members, ",") + "}"
	case depth < 4 && k < 6:
		var elems []string
		for range r.IntN(3) {
			elems = append(elems, randomJSON(r, depth+1))
		}
		return "[" + strings.Join(elems, ",") + "]"
	case k < 9:
		return strs[r.IntN(len(strs))]
	}
	return []string{"1", "-2.5e3", "true", "false", "null"}[r.IntN(5)]
}

// TestInsertBlocks_EntriesByWriter_Migration moves a store with blocks forward past 00040: the
// blocks inserted before keep their entries; after it, the store's insert of a page's blocks
// writes each block's entry once, with the trigger's text, visible at once in the transaction,
// and on PostgreSQL the statement trigger computes only the blocks Go left to it (counted
// calls of quire_content_text: all of them would mean the entries were written twice over, or
// the trigger no longer skips). Child pages get none. (A batch with blocks in and out of
// trash is inserted with every column bound, and the trigger reads it all, as before.)
func TestInsertBlocks_EntriesByWriter_Migration(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		if err := s.MigrateForTest(ctx, searchByWriter-1); err != nil {
			t.Fatal(err)
		}
		w, _ := seed(t, s)
		page := newNode(w.ID, "")
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNode(ctx, page) })
		contents := []string{
			`{"rich_text":[{"plain_text":"alpha one"}]}`,
			`{"rich_text":[{"type":"equation","equation":{"expression":"x^2"},"plain_text":"x^2"}],"caption":[{"plain_text":"cap"}]}`,
			`{"rich_text":[]}`,
			`{"plain_text":"first","plain_text":"repeated key"}`, // left to the trigger
			`{"title":"child"}`,
		}
		newBlocks := func(from string) []*quire.Block {
			keys, _ := order.NBetween(from, "", len(contents))
			var bs []*quire.Block
			for i, c := range contents {
				b := &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID,
					Position: keys[i], Type: "paragraph", Content: []byte(c),
					Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}
				bs = append(bs, b)
			}
			bs[4].Type = "child_page"
			return bs
		}
		// The trigger's text of bs[i] ("" for none): SQLite orders an equation's members as
		// written, PostgreSQL as jsonb keeps them.
		want := []string{"alpha one", "x^2 x^2 cap", "", "repeated key", ""}
		if s.Engine() == store.Postgres {
			want[1] = "cap x^2 x^2"
		} else {
			want[3] = "first repeated key" // json_tree reads both members
		}
		check := func(tx *store.Tx, bs []*quire.Block) {
			t.Helper()
			for i, b := range bs {
				var n int
				var text string
				if err := tx.QueryRowForTest(ctx, `SELECT COUNT(*), COALESCE(MAX(text), '') FROM search_docs WHERE ref = $1`, b.ID).Scan(&n, &text); err != nil {
					t.Fatal(err)
				}
				if wantN := min(len(want[i]), 1); n != wantN || text != want[i] {
					t.Errorf("block %d (%s): %d entries, text %q; want %d, %q", i, contents[i], n, text, wantN, want[i])
				}
			}
		}
		before := newBlocks("")
		mustTx(t, s, func(tx *store.Tx) error {
			if s.Engine() == store.SQLite { // unchanged by 00040
				if err := tx.InsertBlocks(ctx, before); err != nil {
					return err
				}
				check(tx, before)
				return nil
			}
			// As a store before 00040 wrote them: the trigger computed every entry (this
			// binary's insert writes entries the old trigger would write again).
			for _, b := range before {
				if err := tx.ExecForTest(ctx, `INSERT INTO blocks (id, workspace_id, page_id, parent_id, position, type,
					content, in_trash, created_ms, created_by, edited_ms, edited_by) VALUES ($1, $2, $3, $3, $4, $5, $6, $7, 1, 'u', 1, 'u')`,
					b.ID, w.ID, page.ID, b.Position, b.Type, string(b.Content), b.InTrash); err != nil {
					return err
				}
			}
			check(tx, before)
			return nil
		})
		if err := s.MigrateForTest(ctx, math.MaxInt64); err != nil {
			t.Fatal(err)
		}
		after := newBlocks(before[len(before)-1].Position)
		mustTx(t, s, func(tx *store.Tx) error {
			if s.Engine() == store.Postgres {
				if err := tx.ExecForTest(ctx, `SET LOCAL track_functions = 'all'`); err != nil {
					return err
				}
			}
			if err := tx.InsertBlocks(ctx, after); err != nil {
				return err
			}
			check(tx, before)
			check(tx, after)
			if s.Engine() == store.Postgres {
				// Go leaves the repeated key (bs[3]) to the trigger; the empty rich text
				// (bs[2]) has no entry for the trigger to find, so it reads it too.
				var calls int
				if err := tx.QueryRowForTest(ctx, `SELECT COALESCE(SUM(calls), 0) FROM pg_stat_xact_user_functions
					WHERE funcname = 'quire_content_text'`).Scan(&calls); err != nil {
					return err
				}
				if calls != 2 {
					t.Errorf("quire_content_text ran %d times for the append; want 2 (the blocks Go left)", calls)
				}
			}
			return nil
		})
	})
}
