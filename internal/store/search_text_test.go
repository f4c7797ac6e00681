package store_test

import (
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// sqliteText is a block's text as the SQLite trigger computes it ("" for none).
const sqliteText = `SELECT COALESCE((SELECT group_concat(value, ' ') FROM json_tree($1)
	WHERE key IN ('plain_text', 'expression') AND type = 'text'), '')`

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
	s := testdb.SQLite(f)
	f.Fuzz(func(t *testing.T, content []byte) {
		got, ok := store.BlockSearchText(content)
		if !ok {
			return // left to the trigger
		}
		rows, err := s.RowsForTest(ctx, sqliteText, string(content))
		if err != nil {
			t.Fatalf("Go read %q from %q, SQLite refuses it: %v", got, content, err)
		}
		if len(rows) != 1 || rows[0] != got {
			t.Fatalf("text of %q: Go %q, SQLite %q", content, got, rows)
		}
	})
}

// TestBlockSearchText_Canonical checks that the content Quire writes is read by the Go scanner
// (not left to the trigger) and gives the trigger's text.
func TestBlockSearchText_Canonical(t *testing.T) {
	s := testdb.SQLite(t)
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
		got, ok := store.BlockSearchText(content)
		if !ok {
			t.Errorf("%s: the Go scanner leaves %s to the trigger", b.Type, content)
			continue
		}
		rows, err := s.RowsForTest(ctx, sqliteText, string(content))
		if err != nil || len(rows) != 1 || rows[0] != got {
			t.Errorf("%s: Go %q, SQLite %q (%v)", b.Type, got, rows, err)
		}
	}
	if _, ok := store.BlockSearchText([]byte(`{"plain_text":"\ud800"}`)); ok {
		t.Error("a lone surrogate escape is read by Go; SQLite reads those its own way")
	}
}
