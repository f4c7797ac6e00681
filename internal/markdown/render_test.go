package markdown

import (
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
)

func TestRender(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"paragraphs", `[` + p("a") + `,` + p("b") + `]`, "a\n\nb\n"},
		{"numbering restarts after another block", `[
			{"type":"numbered_list_item","numbered_list_item":{"rich_text":[{"text":{"content":"a"}}]}},
			{"type":"numbered_list_item","numbered_list_item":{"rich_text":[{"text":{"content":"b"}}],"children":[
				{"type":"numbered_list_item","numbered_list_item":{"rich_text":[{"text":{"content":"b1"}}]}}]}},
			{"type":"numbered_list_item","numbered_list_item":{"rich_text":[{"text":{"content":"c"}}]}},` + p("x") + `,
			{"type":"numbered_list_item","numbered_list_item":{"rich_text":[{"text":{"content":"d"}}]}}]`,
			"1. a\n2. b\n   1. b1\n3. c\n\nx\n\n1. d\n"},
		{"to-dos", `[{"type":"to_do","to_do":{"rich_text":[{"text":{"content":"a"}}]}},{"type":"to_do","to_do":{"rich_text":[],"checked":true}}]`,
			"- [ ] a\n- [x] <br>\n"},
		{"annotations that cannot flank fall back to tags", `[{"type":"paragraph","paragraph":{"rich_text":[
			{"text":{"content":"a"}},{"text":{"content":"\"b\""},"annotations":{"bold":true}},{"text":{"content":"c "}},
			{"text":{"content":" spaced "},"annotations":{"italic":true}},{"text":{"content":"x"},"annotations":{"bold":true}},{"text":{"content":"y"},"annotations":{"italic":true}}]}}]`,
			"a<strong>\"b\"</strong>c  *spaced* <strong>x</strong>*y*\n"},
		{"code span with backticks", `[{"type":"paragraph","paragraph":{"rich_text":[{"text":{"content":"a` + "``" + `b"},"annotations":{"code":true}},{"text":{"content":" and "}},{"text":{"content":"` + "`" + `x"},"annotations":{"code":true}}]}}]`,
			"```a``b``` and `` `x ``\n"},
		{"alignment has no Markdown form", `[{"type":"paragraph","paragraph":{"rich_text":[{"text":{"content":"a"}}],"text_align":"center"}},
			{"type":"audio","audio":{"external":{"url":"https://x.test/a.mp3"},"text_align":"right","caption_align":"center"}}]`,
			"a\n\n[https://x.test/a.mp3](https://x.test/a.mp3 \"audio\")\n"},
		{"heading keeps hashes", `[{"type":"heading_2","heading_2":{"rich_text":[{"text":{"content":"C# and F#"}}]}}]`, "## C# and F#\n"},
		{"heading closing run", `[{"type":"heading_2","heading_2":{"rich_text":[{"text":{"content":"Issue #5 ## and #"}}]}}]`, "## Issue #5 \\#\\# and \\#\n"},
		{"quote with newline", `[{"type":"quote","quote":{"rich_text":[{"text":{"content":"l1\nl2"}}]}}]`, "> l1<br>l2\n"},
		{"equation with a dollar", `[{"type":"paragraph","paragraph":{"rich_text":[{"equation":{"expression":"a$b"}}]}},{"type":"equation","equation":{"expression":"x\n$$"}}]`,
			"$a\\$b$\n\n$$\nx\n$${}\n$$\n"},
		{"callout without text", `[{"type":"callout","callout":{"rich_text":[],"icon":{"emoji":"🔥"}}}]`, "> [!NOTE]\n> 🔥\n"},
		{"table without header", `[{"type":"table","table":{"table_width":2,"children":[{"type":"table_row","table_row":{"cells":[[{"text":{"content":"a"}}],[{"text":{"content":"b|c"}}]]}}]}}]`,
			"|  |  |\n| --- | --- |\n| a | b\\|c |\n"},
		{"toggle in a list", `[{"type":"bulleted_list_item","bulleted_list_item":{"rich_text":[{"text":{"content":"a"}}],"children":[
			{"type":"toggle","toggle":{"rich_text":[{"text":{"content":"t"}}],"children":[` + p("in") + `]}}]}}]`,
			"- a\n\n  <details>\n  <summary>t</summary>\n\n  in\n\n  </details>\n"},
		{"raw HTML that would not read back is a fence", `[
			{"type":"code","code":{"rich_text":[{"text":{"content":"hello *world*"}}],"language":"html","caption":[{"text":{"content":"Raw HTML"}}]}},
			{"type":"code","code":{"rich_text":[{"text":{"content":"<!-- open"}}],"language":"html","caption":[{"text":{"content":"Raw HTML"}}]}},` + p("after") + `]`,
			"```html\nhello *world*\n```\n\n```html\n<!-- open\n```\n\nafter\n"},
		{"file with no name shows its URL", `[{"type":"file","file":{"external":{"url":"https://x.test/a(1).txt"}}}]`,
			"[https://x.test/a(1).txt](<https://x.test/a(1).txt> \"file\")\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := String(decodeTree(t, tc.in))
			if got != tc.want {
				t.Fatalf("got\n%q\nwant\n%q", got, tc.want)
			}
			if again := String(Parse([]byte(got))); again != got {
				t.Fatalf("not stable: %q", again)
			}
		})
	}
}

// TestRenderer_streams: feeding blocks one at a time with their depth writes exactly what
// Render writes for the tree, and a depth that skips levels is taken as one level deeper.
func TestRenderer_streams(t *testing.T) {
	bs := decodeTree(t, everyType)
	want := String(bs)
	var sb strings.Builder
	r := NewRenderer(&sb)
	_ = blocks.Walk(bs, func(depth int, b *blocks.Block) error { return r.Block(depth, b) })
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if sb.String() != want {
		t.Fatal("streamed output differs")
	}
	sb.Reset()
	r = NewRenderer(&sb)
	_ = r.Block(0, &blocks.Block{Type: "bulleted_list_item", Content: blocks.Content{RichText: blocks.Plain("a")}})
	_ = r.Block(5, &blocks.Block{Type: "bulleted_list_item", Content: blocks.Content{RichText: blocks.Plain("b")}})
	_ = r.Close()
	if sb.String() != "- a\n  - b\n" {
		t.Fatalf("got %q", sb.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errShort }

var errShort = &shortErr{}

type shortErr struct{}

func (*shortErr) Error() string { return "short write" }

func TestRenderer_writeError(t *testing.T) {
	r := NewRenderer(failWriter{})
	big := blocks.Plain(strings.Repeat("x", 1000))
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = r.Block(0, &blocks.Block{Type: "paragraph", Content: blocks.Content{RichText: big}})
	}
	if err == nil {
		err = r.Close()
	}
	if err != errShort {
		t.Fatalf("err = %v", err)
	}
}
