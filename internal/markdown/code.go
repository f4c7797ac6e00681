package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/quire-dev/quire/internal/blocks"
)

func (c *converter) codeText(n ast.Node) string {
	s := c.lines(n)
	return strings.TrimSuffix(s, "\n")
}

// codeBlocks makes one code block, or several when the code exceeds 100 items of 2,000
// characters.
func codeBlocks(lang, code string) []*blocks.Block {
	var out []*blocks.Block
	for _, ch := range fit(blocks.Plain(code)) {
		out = append(out, &blocks.Block{Type: "code", Content: blocks.Content{RichText: ch, Language: lang}})
	}
	return out
}
