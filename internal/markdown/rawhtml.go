package markdown

import (
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/quire-dev/quire/internal/blocks"
)

// Raw HTML (a README's <p align="center"><img …></p>, <picture>, an HTML comment) has no
// block of its own. It is kept as a code block in the language "html" whose caption is
// exactly RawHTMLCaption: the app shows the source, and the Markdown writer writes it back
// verbatim, so a page imported from a README exports the same HTML. A code block of that
// form whose text would not read back as the same raw HTML (say one typed in the app) is
// written as an ordinary html code fence instead.

// RawHTMLCaption is the caption that marks an html code block as raw HTML from Markdown.
const RawHTMLCaption = "Raw HTML"

// rawHTMLBlocks keeps raw HTML as marked code blocks.
func rawHTMLBlocks(raw string) []*blocks.Block {
	out := codeBlocks("html", raw)
	for _, b := range out {
		b.Content.Caption = blocks.Plain(RawHTMLCaption)
	}
	return out
}

// rawHTMLText is the HTML a code block holds when it is marked as raw HTML and writing it
// verbatim reads back as this very block.
func rawHTMLText(c *blocks.Content) (string, bool) {
	if c.Language != "html" || c.Caption.PlainText() != RawHTMLCaption || len(c.Caption) != 1 {
		return "", false
	}
	var sb strings.Builder
	for _, it := range c.RichText {
		sb.WriteString(it.PlainText)
	}
	raw := sb.String()
	if raw == "" || len(raw) > blocks.MaxTextLength*blocks.MaxArray {
		return "", false
	}
	// Followed by a blank line and text, as the writer follows it by the next block: HTML
	// that does not end there (an unclosed "<!--") would swallow what comes after it.
	back := Parse([]byte(raw + "\n\nx\n"))
	if len(back) != 2 || back[0].Type != "code" || back[0].Content.Caption.PlainText() != RawHTMLCaption ||
		back[0].Content.RichText.PlainText() != raw || back[1].Content.RichText.PlainText() != "x" {
		return "", false
	}
	return raw, true
}

var formatTag = regexp.MustCompile(`(?i)^</?(strong|b|em|i|del|s|strike|code|kbd|br)\s*/?>$`)

// onlyHTML reports whether a paragraph is made of inline HTML and spaces alone, with some
// tag beyond the formatting ones the exporter writes: `<a href="…"><img src="…"></a>` on a
// line, say. Such a paragraph has no text to keep, so it is kept as raw HTML instead.
func (c *converter) onlyHTML(n ast.Node) bool {
	tag := false
	for k := n.FirstChild(); k != nil; k = k.NextSibling() {
		switch k := k.(type) {
		case *ast.RawHTML:
			if !formatTag.MatchString(strings.TrimSpace(c.rawHTML(k))) {
				tag = true
			}
		case *ast.Text:
			if strings.TrimSpace(string(k.Segment.Value(c.src))) != "" {
				return false
			}
		default:
			return false
		}
	}
	return tag
}

// writeRawHTML writes raw HTML as it is, each line under the block's prefix.
func (r *Renderer) writeRawHTML(p, raw string) {
	for _, l := range strings.Split(raw, "\n") {
		r.codeLine(p, l)
	}
	r.prevHTML = true
}
