package markdown

import (
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
)

// TestFidelity: one table per defect that real READMEs showed (issue 17). Each case imports
// md, checks the tree when one is given, checks the export, and that the export is stable.
func TestFidelity(t *testing.T) {
	type fcase struct{ name, md, tree, export string }
	img := func(url, caption, link string) string {
		l := ""
		if link != "" {
			l = `,"link":{"url":"` + link + `"}`
		}
		return `{"type":"image","image":{"external":{"url":"` + url + `"},"caption":[{"text":{"content":"` + caption + `"` + l + `}}]}}`
	}
	groups := map[string][]fcase{
		"raw HTML": {
			{"centred logo", "<p align=\"center\">\n  <img src=\"https://x.test/l.png\" width=\"200\">\n</p>\n",
				`[` + rawBlock(`<p align=\"center\">\n  <img src=\"https://x.test/l.png\" width=\"200\">\n</p>`) + `]`,
				"<p align=\"center\">\n  <img src=\"https://x.test/l.png\" width=\"200\">\n</p>\n"},
			{"picture in a link, tabs kept", "<a href=\"#\">\n\t<picture>\n\t\t<img alt=\"Logo\" src=\"https://x.test/l.png\" />\n\t</picture>\n</a>\ntext\n", "",
				"<a href=\"#\">\n\t<picture>\n\t\t<img alt=\"Logo\" src=\"https://x.test/l.png\" />\n\t</picture>\n</a>\ntext\n"},
			{"comment with a blank line", "<!-- keep\n\nme -->\n\nafter\n", `[` + rawBlock(`<!-- keep\n\nme -->`) + `,` + p("after") + `]`,
				"<!-- keep\n\nme -->\n\nafter\n"},
			{"a line of inline HTML alone", "<a href=\"https://x.test\"><img src=\"https://x.test/i.png\"></a>\n",
				`[` + rawBlock(`<a href=\"https://x.test\"><img src=\"https://x.test/i.png\"></a>`) + `]`,
				"<a href=\"https://x.test\"><img src=\"https://x.test/i.png\"></a>\n"},
			{"an unclosed comment is code", "text\n\n<!-- open\n", `[` + p("text") + `,{"type":"code","code":{"rich_text":[{"text":{"content":"<!-- open"}}],"language":"html"}}]`,
				"text\n\n```html\n<!-- open\n```\n"},
			{"in a list item", "- <div>x</div>\n", "", "- <br>\n\n  <div>x</div>\n"},
			{"a control character in <code> is a space, as in a code span", "a <code>x\x01y</code>\n", "", "a `x y`\n"},
			{"inline tags in text: formatting kept, others dropped", "x<sup>2</sup> <kbd>Ctrl</kbd> <img src=\"https://x.test/i.png\" alt=\"pic\">\n", "",
				"x2 `Ctrl` [pic](https://x.test/i.png)\n"},
		},
		"images in links": {
			{"a badge", "[![CI](https://x.test/b.svg?a=1&b=2)](https://x.test/ci)\n", `[` + img("https://x.test/b.svg?a=1&b=2", "CI", "https://x.test/ci") + `]`,
				"[![CI](https://x.test/b.svg?a=1&b=2)](https://x.test/ci)\n"},
			{"a row of badges", "[![a](https://x.test/a.svg)](https://x.test/a)\n[![b](https://x.test/b.svg)](https://x.test/b) ![c](https://x.test/c.svg)\n",
				`[` + img("https://x.test/a.svg", "a", "https://x.test/a") + `,` + img("https://x.test/b.svg", "b", "https://x.test/b") + `,` + img("https://x.test/c.svg", "c", "") + `]`,
				"[![a](https://x.test/a.svg)](https://x.test/a)\n\n[![b](https://x.test/b.svg)](https://x.test/b)\n\n![c](https://x.test/c.svg)\n"},
			{"no alt text: the link is the caption", "[![](https://x.test/a.svg)](https://x.test/a)\n", `[` + img("https://x.test/a.svg", "https://x.test/a", "https://x.test/a") + `]`,
				"[![https://x.test/a](https://x.test/a.svg)](https://x.test/a)\n"},
			{"a badge inside text links to its target", "see [![CI](https://x.test/b.svg)](https://x.test/ci) now\n", "",
				"see [CI](https://x.test/ci) now\n"},
		},
		"minimal escaping": {
			{"ampersands", "fast & simple, AT&T, &amp; and \\&copy;\n", `[` + p("fast & simple, AT&T, & and &copy;") + `]`,
				"fast & simple, AT&T, & and \\&copy;\n"},
			{"words and symbols", "snake_case a < b, 1 > 0, a->b, @user, C:\\dir, 50% off!\n", "",
				"snake_case a < b, 1 > 0, a->b, @user, C:\\dir, 50% off!\n"},
			{"still escaped where it is syntax", "\\<div> \\*x\\* \\_y\\_ \\[a](b) a\\@b.test \\~s\\~ \\$x\\$ \\`c\\`\n", "",
				"\\<div> \\*x\\* \\_y\\_ \\[a\\](b) a\\@b.test \\~s\\~ \\$x\\$ \\`c\\`\n"},
			{"line starts", "\\> q\n\n\\- l\n\n1\\. n\n\n\\# h\n\n\\[x]: y\n", "", "\\> q\n\n\\- l\n\n1\\. n\n\n\\# h\n\n\\[x]: y\n"},
			{"brackets without a link", "map[string]int and []byte\n", "", "map[string]int and []byte\n"},
			{"brackets across styles", "x \\[a<em>\\](b)</em>\n", "", "x [a<em>\\](b)</em>\n"},
			{"bare URLs and addresses are autolinks", "see https://x.test/a?b=1&c=2 or me@x.test\n", "",
				"see <https://x.test/a?b=1&c=2> or <me@x.test>\n"},
			{"heading hashes", "## C# and F# #\n", "", "## C# and F#\n"},
		},
		"anchors": {
			{"before a line of text", "<a name=\"intro\"></a>\nA modern framework\n", `[` + p("A modern framework") + `]`, "A modern framework\n"},
			{"at the end", "Text <a id=\"end\"></a>\n", `[` + p("Text") + `]`, "Text\n"},
			{"before a heading it is kept", "<a name=\"x\"></a>\n## X\n", "", "<a name=\"x\"></a>\n\n## X\n"},
			{"after a line break", "one<br>\ntwo\n", `[` + p(`one\ntwo`) + `]`, "one<br>two\n"},
		},
		"pipes in table cells": {
			{"in code", "| a | b |\n| - | - |\n| `x\\|y` | z |\n", `[{"type":"table","table":{"table_width":2,"has_column_header":true,"children":[
				{"type":"table_row","table_row":{"cells":[[{"text":{"content":"a"}}],[{"text":{"content":"b"}}]]}},
				{"type":"table_row","table_row":{"cells":[[{"text":{"content":"x|y"},"annotations":{"code":true}}],[{"text":{"content":"z"}}]]}}]}}]`,
				"| a | b |\n| --- | --- |\n| `x\\|y` | z |\n"},
			{"in text and a link", "| a |\n| - |\n| p\\|q [l](https://x.test/?a\\|b) |\n", "", "| a |\n| --- |\n| p\\|q [l](https://x.test/?a\\|b) |\n"},
			{"outside a table a pipe is text", "a | b\n", "", "a | b\n"},
		},
	}
	for group, cases := range groups {
		for _, tc := range cases {
			t.Run(group+"/"+tc.name, func(t *testing.T) {
				got := Parse([]byte(tc.md))
				if err := blocks.Validate(got, "children", nil, blocks.Limits{}); err != nil {
					t.Fatalf("does not validate: %v", err)
				}
				if tc.tree != "" {
					if want := decodeTree(t, tc.tree); dump(got) != dump(want) {
						t.Fatalf("tree\n got:\n%s\nwant:\n%s", dump(got), dump(want))
					}
				}
				md := String(got)
				if md != tc.export {
					t.Fatalf("export\n got %q\nwant %q", md, tc.export)
				}
				back := Parse([]byte(md))
				if dump(back) != dump(got) || String(back) != md {
					t.Fatalf("export does not read back:\n%s", dump(back))
				}
			})
		}
	}
}
