package search_test

import (
	"database/sql"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/search"
)

// sqliteText is a block's text as the SQLite trigger computes it ("" for none).
const sqliteText = `SELECT COALESCE((SELECT group_concat(value, ' ') FROM json_tree($1)
	WHERE key IN ('plain_text', 'expression') AND type = 'text'), '')`

// memoryDB is an SQLite database in memory: json_tree needs no tables.
func memoryDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// FuzzBlockSearchText checks that whatever text the Go scanner reads from a block's content is
// exactly what json_tree reads (the store writes an append's entries from it, and the trigger
// then trusts them).
func FuzzBlockSearchText(f *testing.F) {
	for _, seed := range []string{
		`{"rich_text":[{"type":"text","text":{"content":"a","link":null},"annotations":{"bold":false},"plain_text":"a","href":null}],"color":"default"}`,
		`{"caption":[{"plain_text":"cap"}],"rich_text":[{"plain_text":"code"}],"language":"go"}`,
		`{"expression":"E = mc^2"}`,
		`{"rich_text":[{"type":"equation","equation":{"expression":"x^2"},"plain_text":"x^2"}]}`,
		`{"cells":[[{"plain_text":"a"}],[{"plain_text":"b"},{"plain_text":""}]]}`,
		`{"rich_text":[{"plain_text":""},{"plain_text":""}]}`,
		`{"rich_text":[{"plain_text":"tab\tnew\nline \"q\" \\ \/ \u00e9 \ud83d\ude00"}]}`,
		`{"plain\u005ftext":"escaped key","n":[1,-0.5,2e10,-3E-2,true,false,null]}`,
		` { "plain_text" : "spaces" } `,
		`{"rich_text":[]}`, `{}`, `"plain_text"`, `[{"plain_text":1},{"expression":{"plain_text":"deep"}}]`,
	} {
		f.Add([]byte(seed))
	}
	db := memoryDB(f)
	f.Fuzz(func(t *testing.T, content []byte) {
		got, ok := search.BlockText(content)
		if !ok {
			return // left to the trigger
		}
		var want string
		if err := db.QueryRow(sqliteText, string(content)).Scan(&want); err != nil {
			t.Fatalf("Go read %q from %q, SQLite refuses it: %v", got, content, err)
		}
		if want != got {
			t.Fatalf("text of %q: Go %q, SQLite %q", content, got, want)
		}
	})
}

// TestBlockSearchText_Canonical checks that the content Quire writes is read by the Go scanner
// (not left to the trigger) and gives the trigger's text.
func TestBlockSearchText_Canonical(t *testing.T) {
	db := memoryDB(t)
	rt := blocks.RichText{
		blocks.NewText("Plain \"quoted\" 東京 \u2028 tab\t", blocks.Annotations{Bold: true}, "https://example.com"),
		blocks.NewText("second", blocks.Annotations{}, ""),
	}
	for _, b := range []*blocks.Block{
		{Type: "paragraph", Content: blocks.Content{RichText: rt}},
		{Type: "code", Content: blocks.Content{RichText: rt, Caption: rt[1:], Language: "go"}},
		{Type: "heading_2", Content: blocks.Content{RichText: rt[:1]}},
		{Type: "equation", Content: blocks.Content{Expression: `\frac{a}{b} "x"`}},
		{Type: "table_row", Content: blocks.Content{Cells: []blocks.RichText{rt, rt[1:], nil}}},
		{Type: "divider"},
	} {
		content := blocks.MarshalContent(b)
		got, ok := search.BlockText(content)
		if !ok {
			t.Errorf("%s: the Go scanner leaves %s to the trigger", b.Type, content)
			continue
		}
		var want string
		if err := db.QueryRow(sqliteText, string(content)).Scan(&want); err != nil || want != got {
			t.Errorf("%s: Go %q, SQLite %q (%v)", b.Type, got, want, err)
		}
	}
	if _, ok := search.BlockText([]byte(`{"plain_text":"\ud800"}`)); ok {
		t.Error("a lone surrogate escape is read by Go; SQLite reads those its own way")
	}
}
