package markdown

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/quire-dev/quire/internal/blocks"
)

// MaxDepth bounds the nesting Parse produces: deeper content (a pathological 10,000-level
// quote, say) is kept but attached at this depth, so a page tree stays walkable.
const MaxDepth = 32

var md = goldmark.New(goldmark.WithExtensions(extension.GFM, mathExtension{}))

// Parse converts GitHub-flavoured Markdown into blocks (children nested). It never fails:
// what has no block form becomes text. The result satisfies blocks.Validate with no
// structural limits: text is split into items of at most 2,000 characters, a text longer
// than 100 items continues in a block of the same type, links and images with URLs the API
// refuses keep only their text, and nesting stops at MaxDepth.
func Parse(src []byte) []*blocks.Block {
	if !utf8.Valid(src) {
		src = bytes.ToValidUTF8(src, []byte("\uFFFD")) // as the API stores it
	}
	if bytes.IndexByte(src, 0) >= 0 {
		src = bytes.ReplaceAll(src, []byte{0}, []byte("\uFFFD")) // as CommonMark reads NUL
	}
	c := converter{src: src}
	doc := md.Parser().Parse(text.NewReader(src))
	return c.blocks(kids(doc), 0)
}

type converter struct {
	src     []byte
	summary bool    // converting a <summary>: equations carry character references
	drop    dropped // of the text being converted
}

func kids(n ast.Node) []ast.Node {
	var out []ast.Node
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = append(out, c)
	}
	return out
}

// attach sets children on b, or when too deep returns them to follow b as siblings.
func attach(b *blocks.Block, children []*blocks.Block, depth int) []*blocks.Block {
	if len(children) == 0 {
		return []*blocks.Block{b}
	}
	if depth+1 >= MaxDepth {
		return append([]*blocks.Block{b}, children...)
	}
	b.Children = children
	return []*blocks.Block{b}
}

func (c *converter) blocks(nodes []ast.Node, depth int) []*blocks.Block {
	var out []*blocks.Block
	for i := 0; i < len(nodes); i++ {
		hb, ok := nodes[i].(*ast.HTMLBlock)
		if !ok {
			out = append(out, c.block(nodes[i], depth)...)
			continue
		}
		raw := c.lines(hb)
		d := parseDetails(raw)
		if d == nil {
			out = append(out, c.html(raw, ends(hb))...)
			continue
		}
		var children []*blocks.Block
		if strings.TrimSpace(d.rest) != "" {
			children = Parse([]byte(d.rest))
		}
		if !d.closed {
			// The toggle's children are the siblings up to the matching </details>.
			j, level := i+1, 1
			for ; j < len(nodes); j++ {
				h, ok := nodes[j].(*ast.HTMLBlock)
				if !ok {
					continue
				}
				t := c.lines(h)
				if o := parseDetails(t); o != nil && !o.closed {
					level++
				} else if detailsClose.MatchString(t) {
					if level--; level == 0 {
						break
					}
				}
			}
			children = append(children, c.blocks(nodes[i+1:min(j, len(nodes))], depth+1)...)
			i = j
		}
		out = append(out, attach(c.toggle(d), children, depth)...)
	}
	return out
}

// lines is the raw text of a block's lines.
func (c *converter) lines(n ast.Node) string {
	var sb strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		sb.Write(seg.Value(c.src))
	}
	if hb, ok := n.(*ast.HTMLBlock); ok && hb.HasClosure() {
		sb.Write(hb.ClosureLine.Value(c.src))
	}
	return sb.String()
}

// textBlocks makes a block of typ holding rt, continued in further blocks of the same type
// when rt is longer than one rich-text array may be; children go to the last one.
func textBlocks(typ string, rt blocks.RichText, children []*blocks.Block, depth int) []*blocks.Block {
	chunks := fit(merge(rt))
	out := make([]*blocks.Block, 0, len(chunks))
	for i, ch := range chunks {
		b := &blocks.Block{Type: typ, Content: blocks.Content{RichText: ch}}
		if i < len(chunks)-1 {
			out = append(out, b)
			continue
		}
		out = append(out, attach(b, children, depth)...)
	}
	return out
}

func (c *converter) block(n ast.Node, depth int) []*blocks.Block {
	switch n := n.(type) {
	case *ast.Paragraph:
		return c.paragraph(n, depth)
	case *ast.TextBlock:
		if c.onlyHTML(n) {
			return rawHTMLBlocks(strings.TrimSuffix(c.lines(n), "\n"))
		}
		return textBlocks("paragraph", c.inline(n), nil, depth)
	case *ast.Heading:
		typ := "heading_" + strconv.Itoa(min(n.Level, 3))
		return textBlocks(typ, c.inline(n), nil, depth)
	case *ast.ThematicBreak:
		return []*blocks.Block{{Type: "divider"}}
	case *ast.FencedCodeBlock:
		lang := "plain text"
		if n.Info != nil {
			lang = fenceToLanguage(string(n.Language(c.src)))
		}
		return codeBlocks(lang, c.codeText(n))
	case *ast.CodeBlock:
		return codeBlocks("plain text", c.codeText(n))
	case *mathBlock:
		expr := string(bytes.Join(n.expr, []byte("\n")))
		if utf8.RuneCountInString(expr) > blocks.MaxExpressionLength {
			return codeBlocks("latex", expr) // too long for an equation; keep it as code
		}
		return []*blocks.Block{{Type: "equation", Content: blocks.Content{Expression: expr}}}
	case *ast.Blockquote:
		return c.quote(n, depth)
	case *ast.List:
		var out []*blocks.Block
		for li := n.FirstChild(); li != nil; li = li.NextSibling() {
			out = append(out, c.listItem(li, n.IsOrdered(), depth)...)
		}
		return out
	case *east.Table:
		return c.table(n)
	case *ast.HTMLBlock:
		return c.html(c.lines(n), ends(n))
	}
	if n.Type() == ast.TypeBlock {
		return c.blocks(kids(n), depth)
	}
	return nil
}
