package markdown

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/quire-dev/quire/internal/blocks"
)

var (
	detailsOpen  = regexp.MustCompile(`(?is)^\s*<details(?:\s[^>]*)?>\s*(?:<summary(?:\s[^>]*)?>(.*?)</summary>)?(.*)$`)
	detailsClose = regexp.MustCompile(`(?is)^\s*</details>\s*$`)
	headingTag   = regexp.MustCompile(`(?is)^\s*<h([1-6])(?:\s[^>]*)?>(.*)</h[1-6]>\s*$`)
	brTag        = regexp.MustCompile(`(?i)^\s*<br\s*/?>\s*$`)
	commentTag   = regexp.MustCompile(`^\s*<!--\s*(table_of_contents|breadcrumb)\s*-->\s*$`)
	alertMarker  = regexp.MustCompile(`(?i)^\s*\[!(note|tip|important|warning|caution)\]\s*$`)
)

type details struct {
	summary string
	rest    string // content after the summary in the same HTML block
	closed  bool   // the block holds its own </details>
}

func parseDetails(raw string) *details {
	m := detailsOpen.FindStringSubmatch(raw)
	if m == nil {
		return nil
	}
	d := &details{summary: m[1], rest: m[2]}
	if t := strings.TrimRight(d.rest, " \t\r\n"); strings.HasSuffix(strings.ToLower(t), "</details>") {
		d.rest, d.closed = t[:len(t)-len("</details>")], true
	}
	return d
}

// toggle is a toggle, or a toggleable heading when the summary holds <h1>–<h6>.
func (c *converter) toggle(d *details) *blocks.Block {
	b := &blocks.Block{Type: "toggle"}
	inner := d.summary
	if m := headingTag.FindStringSubmatch(inner); m != nil {
		level := min(int(m[1][0]-'0'), 3)
		b.Type = "heading_" + strconv.Itoa(level)
		b.Content.IsToggleable = true
		inner = m[2]
	}
	sc := converter{src: []byte(inner), summary: true}
	doc := md.Parser().Parse(text.NewReader(sc.src))
	var rt blocks.RichText
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n.(type) {
		case *ast.Paragraph, *ast.Heading:
			if len(rt) > 0 {
				rt = append(rt, blocks.NewText("\n", blocks.Annotations{}, ""))
			}
			rt = append(rt, sc.inline(n)...)
		}
	}
	b.Content.RichText = fit(merge(rt))[0]
	return b
}

// html maps an HTML block: the exported markers, a lone <br> (an empty paragraph), a stray
// </details> (dropped); anything else is kept as raw HTML, or as an html code block when it
// does not end (an unclosed "<!--" reaches the end of the document, and written back it
// would swallow whatever follows it).
func (c *converter) html(raw string, ends bool) []*blocks.Block {
	switch {
	case brTag.MatchString(raw):
		return []*blocks.Block{{Type: "paragraph"}}
	case detailsClose.MatchString(raw):
		return nil
	}
	if m := commentTag.FindStringSubmatch(raw); m != nil {
		return []*blocks.Block{{Type: m[1]}}
	}
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	if !ends {
		return codeBlocks("html", strings.TrimSuffix(raw, "\n"))
	}
	return rawHTMLBlocks(strings.TrimSuffix(raw, "\n"))
}

// ends reports whether an HTML block ends by itself: at a blank line (kinds 6 and 7) or at
// its closing marker (-->, </pre>, ?>, ]]>, …), which it holds.
func ends(hb *ast.HTMLBlock) bool {
	return hb.HTMLBlockType >= ast.HTMLBlockType6 || hb.HasClosure()
}

func (c *converter) rawHTML(h *ast.RawHTML) string {
	var sb strings.Builder
	for i := 0; i < h.Segments.Len(); i++ {
		seg := h.Segments.At(i)
		sb.Write(seg.Value(c.src))
	}
	return sb.String()
}

// isLoneBR reports whether n's inline content is one <br>: the form of an empty text.
func (c *converter) isLoneBR(n ast.Node) bool {
	if n.ChildCount() != 1 {
		return false
	}
	h, ok := n.FirstChild().(*ast.RawHTML)
	return ok && brTag.MatchString(c.rawHTML(h))
}
