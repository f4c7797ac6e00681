package markdown

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

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
	summary bool // converting a <summary>: equations carry character references
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
			out = append(out, c.html(raw)...)
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

// html maps an HTML block: the exported markers, a lone <br> (an empty paragraph), a stray
// </details> (dropped); anything else is kept as text.
func (c *converter) html(raw string) []*blocks.Block {
	switch {
	case brTag.MatchString(raw):
		return []*blocks.Block{{Type: "paragraph"}}
	case detailsClose.MatchString(raw):
		return nil
	}
	if m := commentTag.FindStringSubmatch(raw); m != nil {
		return []*blocks.Block{{Type: m[1]}}
	}
	t := strings.ReplaceAll(strings.TrimSpace(raw), "\x00", "\uFFFD")
	if t == "" {
		return nil
	}
	return textBlocks("paragraph", blocks.Plain(t), nil, 0)
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
		return c.html(c.lines(n))
	}
	if n.Type() == ast.TypeBlock {
		return c.blocks(kids(n), depth)
	}
	return nil
}

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

var mediaTitles = map[string]bool{"file": true, "pdf": true, "video": true, "bookmark": true, "embed": true}

func (c *converter) paragraph(n *ast.Paragraph, depth int) []*blocks.Block {
	if c.isLoneBR(n) {
		return []*blocks.Block{{Type: "paragraph"}}
	}
	if n.ChildCount() == 1 {
		switch m := n.FirstChild().(type) {
		case *ast.Image:
			url := unescape(m.Destination)
			if blocks.ValidURL(url) {
				return []*blocks.Block{{Type: "image", Content: blocks.Content{
					File: &blocks.FileSource{Type: "external", URL: url}, Caption: fit(merge(c.inline(m)))[0]}}}
			}
		case *ast.Link:
			url, title := unescape(m.Destination), unescape(m.Title)
			if mediaTitles[title] && blocks.ValidURL(url) {
				return []*blocks.Block{c.media(title, url, c.inline(m))}
			}
		}
	}
	return textBlocks("paragraph", c.inline(n), nil, depth)
}

func (c *converter) media(typ, url string, label blocks.RichText) *blocks.Block {
	b := &blocks.Block{Type: typ}
	plain := strings.TrimSpace(label.PlainText())
	caption := fit(merge(label))[0]
	if plain == url || plain == "" {
		caption = nil
	}
	for i := range caption {
		caption[i].Href, caption[i].Text.Link = "", nil // the link is the block itself
	}
	switch typ {
	case "bookmark", "embed":
		b.Content.URL = url
		b.Content.Caption = caption
	case "file":
		b.Content.File = &blocks.FileSource{Type: "external", URL: url}
		if plain != url {
			b.Content.Name = truncate(plain, blocks.MaxTextLength)
		}
	default:
		b.Content.File = &blocks.FileSource{Type: "external", URL: url}
		b.Content.Caption = caption
	}
	return b
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}

// quote maps a blockquote: a GitHub alert ("> [!NOTE]") is a callout, whose text may start
// with an emoji icon; anything else is a quote. The first paragraph is the text, the rest
// children.
func (c *converter) quote(n *ast.Blockquote, depth int) []*blocks.Block {
	ks := kids(n)
	b := &blocks.Block{Type: "quote"}
	var rt blocks.RichText
	if len(ks) > 0 {
		switch first := ks[0].(type) {
		case *ast.Paragraph:
			var line []byte
			if lines := first.Lines(); lines.Len() > 0 {
				seg := lines.At(0)
				line = seg.Value(c.src)
			}
			if alertMarker.Match(line) {
				b.Type = "callout"
				rt = c.inline(first)
				rt = dropRunes(trimLeftSpace(rt), utf8.RuneCount(bytes.TrimSpace(line)))
				rt = trimLeftSpace(rt)
				if emoji, rest, ok := leadingEmoji(rt); ok {
					b.Content.Icon = &blocks.Icon{Emoji: emoji}
					rt = rest
				}
				ks = ks[1:]
			} else if c.isLoneBR(first) {
				ks = ks[1:]
			} else {
				rt = c.inline(first)
				ks = ks[1:]
			}
		case *ast.HTMLBlock:
			if brTag.MatchString(c.lines(first)) {
				ks = ks[1:]
			}
		}
	}
	children := c.blocks(ks, depth+1)
	out := textBlocks(b.Type, rt, children, depth)
	out[0].Content.Icon = b.Content.Icon
	return out
}

func (c *converter) listItem(li ast.Node, ordered bool, depth int) []*blocks.Block {
	typ := "bulleted_list_item"
	if ordered {
		typ = "numbered_list_item"
	}
	ks := kids(li)
	var rt blocks.RichText
	checked := false
	if len(ks) > 0 {
		switch first := ks[0].(type) {
		case *ast.Paragraph, *ast.TextBlock:
			if box, ok := first.FirstChild().(*east.TaskCheckBox); ok {
				typ, checked = "to_do", box.IsChecked
			}
			if !c.isLoneBR(first) {
				rt = c.inline(first)
			}
			if typ == "to_do" {
				rt = trimLeftSpace(rt)
				if len(rt) == 1 && rt[0].Type == "text" && rt[0].Text.Content == "\n" {
					rt = nil // "- [ ] <br>": an empty to-do
				}
			}
			ks = ks[1:]
		case *ast.HTMLBlock:
			if brTag.MatchString(c.lines(first)) {
				ks = ks[1:]
			}
		}
	}
	out := textBlocks(typ, rt, c.blocks(ks, depth+1), depth)
	for _, b := range out {
		b.Content.Checked = checked
	}
	return out
}

func (c *converter) table(t *east.Table) []*blocks.Block {
	var rows [][]blocks.RichText
	width := 0
	hasHeader := false
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []blocks.RichText
		for cell := r.FirstChild(); cell != nil; cell = cell.NextSibling() {
			rt := fit(merge(c.inline(cell)))[0]
			if rt == nil {
				rt = blocks.RichText{}
			}
			cells = append(cells, rt)
		}
		if _, ok := r.(*east.TableHeader); ok {
			width = min(len(cells), blocks.MaxArray)
			for _, cell := range cells {
				if len(cell) > 0 {
					hasHeader = true
				}
			}
			if !hasHeader {
				continue // the empty header the exporter writes for a table without one
			}
		}
		rows = append(rows, cells)
	}
	if width == 0 {
		return nil
	}
	if len(rows) == 0 {
		rows = append(rows, nil) // a table has at least one row
	}
	tb := &blocks.Block{Type: "table", Content: blocks.Content{TableWidth: width, HasColumnHeader: hasHeader}}
	for _, cells := range rows {
		row := make([]blocks.RichText, width)
		for i := range row {
			if i < len(cells) {
				row[i] = cells[i]
			} else {
				row[i] = blocks.RichText{}
			}
		}
		tb.Children = append(tb.Children, &blocks.Block{Type: "table_row", Content: blocks.Content{Cells: row}})
	}
	return []*blocks.Block{tb}
}

// marks is the styling in force while walking inline nodes.
type marks struct {
	bold, italic, strike, code int
	link                       string
}

func (m marks) annotations() blocks.Annotations {
	return blocks.Annotations{Bold: m.bold > 0, Italic: m.italic > 0, Strikethrough: m.strike > 0, Code: m.code > 0}
}

// inline converts the inline children of n to rich text (not yet merged or split).
func (c *converter) inline(n ast.Node) blocks.RichText {
	var rt blocks.RichText
	var m marks
	var links []string // <a href> tags open
	c.walkInline(n, &rt, &m, &links)
	return merge(unstyleSpaces(rt))
}

func (c *converter) add(rt *blocks.RichText, m *marks, s string) {
	if s == "" {
		return
	}
	*rt = append(*rt, blocks.NewText(s, m.annotations(), m.link))
}

func (c *converter) walkInline(n ast.Node, rt *blocks.RichText, m *marks, links *[]string) {
	for k := n.FirstChild(); k != nil; k = k.NextSibling() {
		switch k := k.(type) {
		case *ast.Text:
			v := k.Segment.Value(c.src)
			if k.IsRaw() {
				c.add(rt, m, string(v))
			} else {
				c.add(rt, m, unescape(v))
			}
			switch {
			case k.HardLineBreak():
				c.add(rt, m, "\n")
			case k.SoftLineBreak():
				c.add(rt, m, " ")
			}
		case *ast.String:
			c.add(rt, m, string(k.Value))
		case *ast.Emphasis:
			lvl := &m.italic
			if k.Level >= 2 {
				lvl = &m.bold
			}
			*lvl++
			c.walkInline(k, rt, m, links)
			*lvl--
		case *east.Strikethrough:
			m.strike++
			c.walkInline(k, rt, m, links)
			m.strike--
		case *ast.CodeSpan:
			var sb strings.Builder
			for t := k.FirstChild(); t != nil; t = t.NextSibling() {
				if tt, ok := t.(*ast.Text); ok {
					sb.Write(tt.Segment.Value(c.src))
				} else if s, ok := t.(*ast.String); ok {
					sb.Write(s.Value)
				}
			}
			m.code++
			c.add(rt, m, codeSafe(strings.ReplaceAll(sb.String(), "\n", " ")))
			m.code--
		case *ast.Link:
			saved := m.link
			if url := unescape(k.Destination); blocks.ValidURL(url) {
				m.link = url
			}
			c.walkInline(k, rt, m, links)
			m.link = saved
		case *ast.AutoLink:
			url := string(k.URL(c.src))
			if k.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
				url = "mailto:" + url
			}
			saved := m.link
			if blocks.ValidURL(url) {
				m.link = url
			}
			c.add(rt, m, string(k.Label(c.src)))
			m.link = saved
		case *ast.Image:
			saved := m.link
			if url := unescape(k.Destination); blocks.ValidURL(url) {
				m.link = url
			}
			c.walkInline(k, rt, m, links)
			m.link = saved
		case *ast.RawHTML:
			c.tag(c.rawHTML(k), rt, m, links)
		case *inlineMath:
			expr := string(k.expr)
			if c.summary {
				expr = unescape(k.expr)
			}
			if utf8.RuneCountInString(expr) > blocks.MaxExpressionLength {
				c.add(rt, m, "$"+expr+"$")
				continue
			}
			*rt = append(*rt, blocks.NewEquation(expr, m.annotations())) // equations carry no link
		case *east.TaskCheckBox:
			// read by listItem
		default:
			c.walkInline(k, rt, m, links)
		}
	}
}

var (
	openTag  = regexp.MustCompile(`(?i)^<(strong|b|em|i|del|s|strike|code)\s*>$`)
	closeTag = regexp.MustCompile(`(?i)^</(strong|b|em|i|del|s|strike|code|a)\s*>$`)
	aTag     = regexp.MustCompile(`(?is)^<a\s+href\s*=\s*"([^"]*)"\s*>$`)
)

// tag applies the inline HTML the exporter writes (and the common equivalents): <br>,
// <strong>/<b>, <em>/<i>, <del>/<s>, <code>, <a href>. Other tags are dropped.
func (c *converter) tag(t string, rt *blocks.RichText, m *marks, links *[]string) {
	if brTag.MatchString(t) {
		c.add(rt, m, "\n")
		return
	}
	counter := func(name string) *int {
		switch strings.ToLower(name) {
		case "strong", "b":
			return &m.bold
		case "em", "i":
			return &m.italic
		case "del", "s", "strike":
			return &m.strike
		case "code":
			return &m.code
		}
		return nil
	}
	if g := openTag.FindStringSubmatch(t); g != nil {
		*counter(g[1])++
		return
	}
	if g := aTag.FindStringSubmatch(t); g != nil {
		*links = append(*links, m.link)
		if url := unescape([]byte(g[1])); blocks.ValidURL(url) {
			m.link = url
		}
		return
	}
	if g := closeTag.FindStringSubmatch(t); g != nil {
		if strings.EqualFold(g[1], "a") {
			if n := len(*links); n > 0 {
				m.link = (*links)[n-1]
				*links = (*links)[:n-1]
			}
			return
		}
		if p := counter(g[1]); *p > 0 {
			*p--
		}
	}
}

// unescape resolves backslash escapes and character references in one pass, as a
// CommonMark renderer does when it writes text.
func unescape(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 && bytes.IndexByte(b, '&') < 0 && bytes.IndexByte(b, 0) < 0 {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\\' && i+1 < len(b) && util.IsPunct(b[i+1]):
			out = append(out, b[i+1])
			i++
		case c == 0:
			out = append(out, "\uFFFD"...)
		case c == '&':
			if r, n := charRef(b[i:]); n > 0 {
				out = append(out, r...)
				i += n - 1
			} else {
				out = append(out, c)
			}
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// charRef decodes a character reference at the start of b: its text and length, or 0.
func charRef(b []byte) ([]byte, int) {
	end := bytes.IndexByte(b, ';')
	if end < 2 || end > 40 {
		return nil, 0
	}
	name := b[1:end]
	if name[0] == '#' {
		var v uint64
		var err error
		switch {
		case len(name) > 1 && (name[1] == 'x' || name[1] == 'X'):
			if len(name) < 3 || len(name) > 8 {
				return nil, 0
			}
			v, err = strconv.ParseUint(string(name[2:]), 16, 32)
		default:
			if len(name) < 2 || len(name) > 8 {
				return nil, 0
			}
			v, err = strconv.ParseUint(string(name[1:]), 10, 32)
		}
		if err != nil {
			return nil, 0
		}
		r := rune(v)
		if v == 0 || v > unicode.MaxRune || !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		return utf8.AppendRune(nil, r), end + 1
	}
	for _, c := range name {
		if !util.IsAlphaNumeric(c) {
			return nil, 0
		}
	}
	if e, ok := util.LookUpHTML5EntityByName(string(name)); ok {
		return e.Characters, end + 1
	}
	return nil, 0
}

// merge joins neighbouring text items with the same styling and link, and drops empty ones.
func merge(rt blocks.RichText) blocks.RichText {
	out := rt[:0]
	for _, it := range rt {
		if it.Type == "text" && it.Text.Content == "" {
			continue
		}
		if n := len(out); n > 0 && it.Type == "text" && out[n-1].Type == "text" &&
			out[n-1].Annotations == it.Annotations && out[n-1].Href == it.Href {
			out[n-1] = blocks.NewText(out[n-1].Text.Content+it.Text.Content, it.Annotations, it.Href)
			continue
		}
		out = append(out, it)
	}
	return out
}

// fit splits text items longer than MaxTextLength and cuts the result into arrays of at
// most MaxArray items. It always returns at least one (possibly empty) array.
func fit(rt blocks.RichText) []blocks.RichText {
	var items blocks.RichText
	for _, it := range rt {
		if it.Type != "text" || len(it.Text.Content) <= blocks.MaxTextLength {
			items = append(items, it)
			continue
		}
		r := []rune(it.Text.Content)
		for len(r) > 0 {
			n := min(len(r), blocks.MaxTextLength)
			items = append(items, blocks.NewText(string(r[:n]), it.Annotations, it.Href))
			r = r[n:]
		}
	}
	var out []blocks.RichText
	for len(items) > blocks.MaxArray {
		out = append(out, items[:blocks.MaxArray:blocks.MaxArray])
		items = items[blocks.MaxArray:]
	}
	return append(out, items)
}

// dropRunes removes the first n characters of rt's text.
func dropRunes(rt blocks.RichText, n int) blocks.RichText {
	for len(rt) > 0 && n > 0 {
		it := rt[0]
		if it.Type != "text" {
			return rt
		}
		r := []rune(it.Text.Content)
		if len(r) > n {
			rt[0] = blocks.NewText(string(r[n:]), it.Annotations, it.Href)
			return rt
		}
		n -= len(r)
		rt = rt[1:]
	}
	return rt
}

func trimLeftSpace(rt blocks.RichText) blocks.RichText {
	for len(rt) > 0 && rt[0].Type == "text" {
		s := strings.TrimLeft(rt[0].Text.Content, " ")
		if s != "" {
			rt[0] = blocks.NewText(s, rt[0].Annotations, rt[0].Href)
			return rt
		}
		rt = rt[1:]
	}
	return rt
}

// leadingEmoji splits an emoji (with its modifiers, joiners and flag pair) followed by a
// space or the end off the start of an unstyled text.
func leadingEmoji(rt blocks.RichText) (string, blocks.RichText, bool) {
	if len(rt) == 0 || rt[0].Type != "text" || rt[0].Annotations != (blocks.Annotations{}) || rt[0].Href != "" {
		return "", rt, false
	}
	s := rt[0].Text.Content
	r, size := utf8.DecodeRuneInString(s)
	if r < 0x80 || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsMark(r) {
		return "", rt, false
	}
	i, count := size, 1
	for i < len(s) && count < 16 {
		r2, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r2 == 0xFE0E || r2 == 0xFE0F || r2 == 0x20E3 || (r2 >= 0x1F3FB && r2 <= 0x1F3FF) || (r2 >= 0xE0020 && r2 <= 0xE007F):
		case r2 == 0x200D:
			if _, m := utf8.DecodeRuneInString(s[i+n:]); m > 0 {
				n += m
				count++
			}
		case count == 1 && r >= 0x1F1E6 && r <= 0x1F1FF && r2 >= 0x1F1E6 && r2 <= 0x1F1FF:
		default:
			goto done
		}
		i += n
		count++
	}
done:
	emoji, rest := s[:i], s[i:]
	if rest != "" && rest[0] != ' ' {
		return "", rt, false
	}
	if utf8.RuneCountInString(emoji) > 16 {
		return "", rt, false
	}
	rest = strings.TrimPrefix(rest, " ")
	out := append(blocks.RichText(nil), rt...)
	if rest == "" {
		out = out[1:]
	} else {
		out[0] = blocks.NewText(rest, out[0].Annotations, "")
	}
	return emoji, out, true
}

// unstyleSpaces moves the spaces at the edges of bold, italic or struck text out of the
// styling, as the exporter writes them (emphasis cannot open before a space), so that an
// imported tree exports and imports back unchanged.
func unstyleSpaces(rt blocks.RichText) blocks.RichText {
	var out blocks.RichText
	for _, it := range rt {
		a := it.Annotations
		if it.Type != "text" || a.Code || !(a.Bold || a.Italic || a.Strikethrough) {
			out = append(out, it)
			continue
		}
		s := it.Text.Content
		core := strings.TrimFunc(s, unicode.IsSpace)
		lead := s[:strings.Index(s, core)]
		trail := s[len(lead)+len(core):]
		plain := blocks.Annotations{TextColor: a.TextColor, BackgroundColor: a.BackgroundColor}
		if lead != "" {
			out = append(out, blocks.NewText(lead, plain, it.Href))
		}
		if core != "" {
			out = append(out, blocks.NewText(core, a, it.Href))
		}
		if trail != "" {
			out = append(out, blocks.NewText(trail, plain, it.Href))
		}
	}
	return out
}
