package markdown

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A goldmark extension for the two math forms: $$ … $$ on lines of their own (an equation
// block) and $…$ inside text (an inline equation). goldmark has neither; the rules follow
// the common dialect (GitHub, pandoc): an inline opening $ is not followed by a space and
// the closing one not preceded by one, and an unescaped $ after a space inside ends the
// attempt, so "costs $5 and $10" stays text.

var (
	kindMathBlock  = ast.NewNodeKind("MathBlock")
	kindInlineMath = ast.NewNodeKind("InlineMath")
)

// mathBlock is an equation block.
type mathBlock struct {
	ast.BaseBlock
	expr   [][]byte // the expression's lines
	closed bool
}

func (n *mathBlock) Kind() ast.NodeKind         { return kindMathBlock }
func (n *mathBlock) IsRaw() bool                { return true }
func (n *mathBlock) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// inlineMath is an inline equation; expr is the raw text between the dollars.
type inlineMath struct {
	ast.BaseInline
	expr []byte
}

func (n *inlineMath) Kind() ast.NodeKind         { return kindInlineMath }
func (n *inlineMath) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

type mathBlockParser struct{}

func (mathBlockParser) Trigger() []byte { return []byte{'$'} }

func (mathBlockParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, _ := reader.PeekLine()
	pos := pc.BlockOffset()
	if pos < 0 || !bytes.HasPrefix(line[pos:], []byte("$$")) {
		return nil, parser.NoChildren
	}
	node := &mathBlock{}
	rest := bytes.TrimRight(line[pos+2:], " \t\r\n")
	if len(rest) > 0 {
		if bytes.HasSuffix(rest, []byte("$$")) && len(rest) >= 2 {
			rest = rest[:len(rest)-2]
			node.closed = true
		}
		node.expr = append(node.expr, rest)
	}
	reader.AdvanceToEOL()
	return node, parser.NoChildren
}

func (mathBlockParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	n := node.(*mathBlock)
	if n.closed {
		return parser.Close
	}
	line, seg := reader.PeekLine()
	if line == nil {
		return parser.Close
	}
	// Like a code fence, the block ends at a line of its own: an expression may hold "$$".
	if bytes.Equal(bytes.TrimSpace(line), []byte("$$")) {
		reader.AdvanceToEOL()
		return parser.Close
	}
	l := bytes.TrimRight(line, "\r\n")
	if seg.Padding > 0 {
		l = append(bytes.Repeat([]byte{' '}, seg.Padding), l...)
	}
	if bytes.Equal(bytes.TrimSpace(l), []byte("$${}")) {
		// The exporter's form of an expression line "$$" (see Renderer).
		i := bytes.Index(l, []byte("{}"))
		l = append(l[:i:i], l[i+2:]...)
	}
	n.expr = append(n.expr, l)
	reader.AdvanceToEOL()
	return parser.Continue | parser.NoChildren
}

func (mathBlockParser) Close(ast.Node, text.Reader, parser.Context) {}
func (mathBlockParser) CanInterruptParagraph() bool                 { return true }
func (mathBlockParser) CanAcceptIndentedLine() bool                 { return false }

type inlineMathParser struct{}

func (inlineMathParser) Trigger() []byte { return []byte{'$'} }

func (inlineMathParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, _ := block.PeekLine()
	const open = 1
	if len(line) <= open || line[open] == '$' {
		return nil // "$$" inside text stays text; display math is a block of its own
	}
	if r, _ := utf8.DecodeRune(line[open:]); unicode.IsSpace(r) {
		return nil
	}
	for i := open; i < len(line); i++ {
		switch line[i] {
		case '\\':
			if i+1 < len(line) && (line[i+1] == '\n' || line[i+1] == '\r') {
				return nil // the line ends: an equation is one line (the exporter writes it so)
			}
			i++ // an escaped character, \$ included, does not close
		case '\n', '\r':
			return nil
		case '$':
			if r, _ := utf8.DecodeLastRune(line[:i]); unicode.IsSpace(r) {
				return nil // "$5 and $10": a dollar after a space opens no equation here
			}
			expr := append([]byte(nil), line[open:i]...)
			block.Advance(i + 1)
			return &inlineMath{expr: expr}
		}
	}
	return nil
}

type mathExtension struct{}

func (mathExtension) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		parser.WithBlockParsers(util.Prioritized(mathBlockParser{}, 700)),
		parser.WithInlineParsers(util.Prioritized(inlineMathParser{}, 150)),
	)
}
