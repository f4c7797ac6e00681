package markdown

import (
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
)

var fuzzSeeds = []string{
	"# Title\n\nPlain **bold** *it* ~~s~~ `c` [l](https://x.test) $x^2$\n",
	"- a\n  - b\n    1. c\n- [ ] todo\n- [x] done\n",
	"> quote\n>\n> - item\n\n> [!NOTE]\n> 💡 callout\n",
	"```go\ncode\n```\n\n$$\n\\frac12\n$$\n\n---\n",
	"| a | b |\n| --- | --- |\n| 1 | 2 |\n",
	"<details>\n<summary><h2>T</h2></summary>\n\ninside\n\n</details>\n",
	"<details><summary>one line</summary>body</details>\n",
	"![img](https://x.test/i.png)\n\n[f](https://x.test/f \"file\")\n\n<!-- table_of_contents -->\n\n<br>\n",
	"- <br>\n\n  child\n", "$$", "<details>", "> [!TIP]", "***a***b__c__", "[a]: https://x.test\n\n[a]\n",
}

// FuzzParse: any Markdown parses without a panic into blocks that validate; exporting them
// and importing the export gives the same tree, so the export is stable too.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		bs := Parse(src)
		if err := blocks.Validate(bs, "children", nil, blocks.Limits{}); err != nil {
			t.Fatalf("Parse(%q) does not validate: %v", src, err)
		}
		md1 := String(bs)
		bs2 := Parse([]byte(md1))
		if dump(bs2) != dump(bs) {
			t.Fatalf("import → export → import changed the tree\nsrc %q\nmd  %q\n%s\n---\n%s", src, md1, dump(bs), dump(bs2))
		}
		if md2 := String(bs2); md2 != md1 {
			t.Fatalf("export not stable:\nsrc %q\nmd1 %q\nmd2 %q", src, md1, md2)
		}
	})
}
