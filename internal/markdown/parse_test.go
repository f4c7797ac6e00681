package markdown

import (
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
)

func p(text string) string {
	return `{"type":"paragraph","paragraph":{"rich_text":[{"text":{"content":"` + text + `"}}]}}`
}

// rawBlock is the request body of the code block that keeps raw HTML (JSON-escaped html).
func rawBlock(html string) string {
	return `{"type":"code","code":{"rich_text":[{"text":{"content":"` + html + `"}}],"language":"html","caption":[{"text":{"content":"Raw HTML"}}]}}`
}

func TestParse(t *testing.T) {
	cases := []struct {
		name, md, want string // want: a request body decoding to the expected tree
	}{
		{"headings", "# a\n\n## b\n\n### c\n\n#### d\n", `[
			{"type":"heading_1","heading_1":{"rich_text":[{"text":{"content":"a"}}]}},
			{"type":"heading_2","heading_2":{"rich_text":[{"text":{"content":"b"}}]}},
			{"type":"heading_3","heading_3":{"rich_text":[{"text":{"content":"c"}}]}},
			{"type":"heading_3","heading_3":{"rich_text":[{"text":{"content":"d"}}]}}]`},
		{"setext heading", "Title\n=====\n", `[{"type":"heading_1","heading_1":{"rich_text":[{"text":{"content":"Title"}}]}}]`},
		{"soft and hard breaks", "a\nb  \nc\\\nd\n", `[` + p(`a b\nc\nd`) + `]`},
		{"emphasis", "*i* **b** ***bi*** ~~s~~ `c` <strong>t</strong> <em>e</em> <del>d</del>\n", `[{"type":"paragraph","paragraph":{"rich_text":[
			{"text":{"content":"i"},"annotations":{"italic":true}},{"text":{"content":" "}},
			{"text":{"content":"b"},"annotations":{"bold":true}},{"text":{"content":" "}},
			{"text":{"content":"bi"},"annotations":{"bold":true,"italic":true}},{"text":{"content":" "}},
			{"text":{"content":"s"},"annotations":{"strikethrough":true}},{"text":{"content":" "}},
			{"text":{"content":"c"},"annotations":{"code":true}},{"text":{"content":" "}},
			{"text":{"content":"t"},"annotations":{"bold":true}},{"text":{"content":" "}},
			{"text":{"content":"e"},"annotations":{"italic":true}},{"text":{"content":" "}},
			{"text":{"content":"d"},"annotations":{"strikethrough":true}}]}}]`},
		{"links", "[a **b**](https://x.test) <https://y.test> www.z.test me@q.test [bad](javascript:x)\n", `[{"type":"paragraph","paragraph":{"rich_text":[
			{"text":{"content":"a ","link":{"url":"https://x.test"}}},{"text":{"content":"b","link":{"url":"https://x.test"}},"annotations":{"bold":true}},
			{"text":{"content":" "}},{"text":{"content":"https://y.test","link":{"url":"https://y.test"}}},{"text":{"content":" "}},
			{"text":{"content":"www.z.test","link":{"url":"http://www.z.test"}}},{"text":{"content":" "}},
			{"text":{"content":"me@q.test","link":{"url":"mailto:me@q.test"}}},{"text":{"content":" bad"}}]}}]`},
		{"escapes and entities", "\\*a\\* &amp; &copy; &#x41; \\\\\n", `[` + p(`*a* & © A \\`) + `]`},
		{"inline math", "cost $5 and $10, $x^2$ and $a\\$b$\n", `[{"type":"paragraph","paragraph":{"rich_text":[
			{"text":{"content":"cost $5 and $10, "}},{"equation":{"expression":"x^2"}},{"text":{"content":" and "}},{"equation":{"expression":"a\\$b"}}]}}]`},
		{"math block", "$$\na\n\nb\n$$\n\n$$c$$\n", `[{"type":"equation","equation":{"expression":"a\n\nb"}},{"type":"equation","equation":{"expression":"c"}}]`},
		{"lists", "- a\n  - b\n1. c\n2. d\n   more\n- [ ] e\n- [x] f\n", `[
			{"type":"bulleted_list_item","bulleted_list_item":{"rich_text":[{"text":{"content":"a"}}],"children":[
				{"type":"bulleted_list_item","bulleted_list_item":{"rich_text":[{"text":{"content":"b"}}]}}]}},
			{"type":"numbered_list_item","numbered_list_item":{"rich_text":[{"text":{"content":"c"}}]}},
			{"type":"numbered_list_item","numbered_list_item":{"rich_text":[{"text":{"content":"d more"}}]}},
			{"type":"to_do","to_do":{"rich_text":[{"text":{"content":"e"}}]}},
			{"type":"to_do","to_do":{"rich_text":[{"text":{"content":"f"}}],"checked":true}}]`},
		{"loose list item with blocks", "- a\n\n  para\n\n  ```\n  x\n  ```\n", `[
			{"type":"bulleted_list_item","bulleted_list_item":{"rich_text":[{"text":{"content":"a"}}],"children":[` + p("para") + `,
				{"type":"code","code":{"rich_text":[{"text":{"content":"x"}}],"language":"plain text"}}]}}]`},
		{"code", "```js\nlet a\n```\n\n```unknown-lang\nz\n```\n\n    indented\n", `[
			{"type":"code","code":{"rich_text":[{"text":{"content":"let a"}}],"language":"javascript"}},
			{"type":"code","code":{"rich_text":[{"text":{"content":"z"}}],"language":"plain text"}},
			{"type":"code","code":{"rich_text":[{"text":{"content":"indented"}}],"language":"plain text"}}]`},
		{"quote and callout", "> q\n> r\n>\n> - x\n\n> [!WARNING]\n> ⚠️ careful\n\n> [!TIP]\n", `[
			{"type":"quote","quote":{"rich_text":[{"text":{"content":"q r"}}],"children":[
				{"type":"bulleted_list_item","bulleted_list_item":{"rich_text":[{"text":{"content":"x"}}]}}]}},
			{"type":"callout","callout":{"rich_text":[{"text":{"content":"careful"}}],"icon":{"emoji":"⚠️"}}},
			{"type":"callout","callout":{"rich_text":[]}}]`},
		{"thematic breaks", "---\n\n***\n", `[{"type":"divider","divider":{}},{"type":"divider","divider":{}}]`},
		{"table", "| a | b |\n| - | - |\n| 1 |\n", `[{"type":"table","table":{"table_width":2,"has_column_header":true,"children":[
			{"type":"table_row","table_row":{"cells":[[{"text":{"content":"a"}}],[{"text":{"content":"b"}}]]}},
			{"type":"table_row","table_row":{"cells":[[{"text":{"content":"1"}}],[]]}}]}}]`},
		{"details", "<details>\n<summary>T <b>b</b></summary>\n\n- x\n\n</details>\n\nafter\n", `[
			{"type":"toggle","toggle":{"rich_text":[{"text":{"content":"T "}},{"text":{"content":"b"},"annotations":{"bold":true}}],"children":[
				{"type":"bulleted_list_item","bulleted_list_item":{"rich_text":[{"text":{"content":"x"}}]}}]}},` + p("after") + `]`},
		{"details on one line", "<details><summary>S</summary>body *b*</details>\n", `[
			{"type":"toggle","toggle":{"rich_text":[{"text":{"content":"S"}}],"children":[{"type":"paragraph","paragraph":{"rich_text":[
				{"text":{"content":"body "}},{"text":{"content":"b"},"annotations":{"italic":true}}]}}]}}]`},
		{"unclosed details", "<details>\n<summary>S</summary>\n\nrest\n", `[{"type":"toggle","toggle":{"rich_text":[{"text":{"content":"S"}}],"children":[` + p("rest") + `]}}]`},
		{"media", "![cap](https://x.test/i.png)\n\n[n.zip](https://x.test/n.zip \"file\")\n\n[https://x.test/b](https://x.test/b \"bookmark\")\n\n[see](https://x.test/v \"video\")\n", `[
			{"type":"image","image":{"external":{"url":"https://x.test/i.png"},"caption":[{"text":{"content":"cap"}}]}},
			{"type":"file","file":{"external":{"url":"https://x.test/n.zip"},"name":"n.zip"}},
			{"type":"bookmark","bookmark":{"url":"https://x.test/b"}},
			{"type":"video","video":{"external":{"url":"https://x.test/v"},"caption":[{"text":{"content":"see"}}]}}]`},
		{"audio is a link titled audio; a plain link stays a paragraph", "[talk](https://x.test/a.mp3 \"audio\")\n\n[talk](https://x.test/a.mp3)\n", `[
			{"type":"audio","audio":{"external":{"url":"https://x.test/a.mp3"},"caption":[{"text":{"content":"talk"}}]}},
			{"type":"paragraph","paragraph":{"rich_text":[{"text":{"content":"talk","link":{"url":"https://x.test/a.mp3"}}}]}}]`},
		{"image with a bad URL keeps its text", "![alt](javascript:x)\n", `[` + p("alt") + `]`},
		{"markers", "<!-- table_of_contents -->\n\n<!-- breadcrumb -->\n\n<br>\n\n<div>raw</div>\n", `[
			{"type":"table_of_contents","table_of_contents":{}},{"type":"breadcrumb","breadcrumb":{}},
			{"type":"paragraph","paragraph":{"rich_text":[]}},` + rawBlock("<div>raw</div>") + `]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse([]byte(tc.md))
			want := decodeTree(t, tc.want)
			if dump(got) != dump(want) {
				t.Fatalf("Parse(%q)\n got:\n%s\nwant:\n%s", tc.md, dump(got), dump(want))
			}
			if err := blocks.Validate(got, "children", nil, blocks.Limits{}); err != nil {
				t.Fatalf("does not validate: %v", err)
			}
		})
	}
}

func TestParse_limits(t *testing.T) {
	long := strings.Repeat("a", 4500)
	got := Parse([]byte(long))
	if len(got) != 1 || len(got[0].Content.RichText) != 3 {
		t.Fatalf("a 4,500-character paragraph is one block of three items, got %s", dump(got))
	}
	var sb strings.Builder
	for i := 0; i < 150; i++ {
		sb.WriteString("*x* y ")
	}
	got = Parse([]byte(sb.String()))
	if len(got) != 3 {
		t.Fatalf("300 items continue in further paragraphs, got %d blocks", len(got))
	}
	deep := strings.Repeat(">", 200) + " x\n"
	got = Parse([]byte(deep))
	depth := 0
	_ = blocks.Walk(got, func(d int, _ *blocks.Block) error { depth = max(depth, d); return nil })
	if depth >= MaxDepth {
		t.Fatalf("depth %d, want below %d", depth, MaxDepth)
	}
	for _, bs := range [][]*blocks.Block{got, Parse([]byte("| " + strings.Repeat("a | ", 150) + "\n|" + strings.Repeat(" - |", 150) + "\n"))} {
		if err := blocks.Validate(bs, "children", nil, blocks.Limits{}); err != nil {
			t.Fatalf("does not validate: %v", err)
		}
	}
}
