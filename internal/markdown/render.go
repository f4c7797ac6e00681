// Package markdown converts blocks to GitHub-flavoured Markdown and back (contract §5).
//
// Export streams: a Renderer takes a page's blocks one at a time, in document order with
// their depth, and keeps only the chain of open ancestors, so memory does not grow with the
// page. Import parses with goldmark (GFM) and maps the syntax tree to blocks.
//
// Representations beyond plain CommonMark, chosen so that export → import keeps the tree:
//   - newlines inside rich text are <br>; an empty text block is a lone <br>;
//   - toggles are <details><summary>…</summary> … </details>, a toggleable heading puts <hN>
//     in the summary; the summary's text uses HTML tags and character references, which
//     GitHub renders inside HTML;
//   - callouts are GitHub alerts: "> [!NOTE]" then "> 💡 text" (emoji icons only);
//   - equations are $$…$$ blocks and $…$ inline;
//   - image is ![caption](url), or [![caption](url)](link) when the caption is one link (a
//     badge); file, pdf, video, audio, bookmark and embed are links whose title
//     names the type ([caption](url "pdf")), so a plain link stays a paragraph with a link; child pages, child databases and link_to_page
//     are plain links [Title](url) from Content.Title and Content.URL, which the caller fills;
//   - table_of_contents and breadcrumb are HTML comments; columns are flattened;
//   - a table without a column header gets an empty header row, since GFM needs one;
//   - raw HTML is an html code block captioned "Raw HTML", written back verbatim (rawhtml.go).
//
// Colours, text_align and caption_align, underline, other captions of code blocks, has_row_header, non-emoji callout icons and
// the indentation of a paragraph's children have no Markdown form and are dropped; mentions
// export as their plain text (a link when they have an href). Import reads headings 4–6 as
// heading_3, any GitHub alert kind as a callout, soft line breaks as spaces, unknown fence
// languages as plain text, and a paragraph of images alone as image blocks.
package markdown

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/blocks"
)

// Renderer writes blocks as Markdown as they arrive. It is not safe for concurrent use.
type Renderer struct {
	w        *bufio.Writer
	buf      []byte // one block's output, reused
	scratch  []run
	stack    []frame // the open ancestors of the next block, by depth
	counters []int   // numbered list counters by depth
	wrote    bool    // something was written
	prevList bool    // the last thing written was a list item's line
	prevHTML bool    // … and it was a lone <br> (an HTML block, which swallows following lines)
	prevQ    int     // quote depth of the last thing written
	err      error
}

type frame struct {
	typ      string
	prefix   string // prefix of the lines of this block's children
	closer   string // written when the block ends ("</details>")
	children bool   // a child was written
	width    int    // table: columns
	header   bool   // table: the first row is the header
	rows     int    // table: rows written
}

// NewRenderer returns a renderer writing to w. Call Close at the end.
func NewRenderer(w io.Writer) *Renderer {
	return &Renderer{w: bufio.NewWriterSize(w, 8192), buf: make([]byte, 0, 1024)}
}

// Render writes a whole forest of blocks (children nested) to w.
func Render(w io.Writer, bs []*blocks.Block) error {
	r := NewRenderer(w)
	if err := blocks.Walk(bs, r.Block); err != nil {
		return err
	}
	return r.Close()
}

// String renders a forest of blocks to a string.
func String(bs []*blocks.Block) string {
	var sb strings.Builder
	_ = Render(&sb, bs)
	return sb.String()
}

// Block writes b, which sits at depth (0 for the page's own blocks) directly after the
// previous block or one of its ancestors, i.e. in document order. A depth deeper than the
// previous block's plus one is taken as that.
func (r *Renderer) Block(depth int, b *blocks.Block) error {
	if r.err != nil {
		return r.err
	}
	if depth < 0 {
		depth = 0
	}
	if depth > len(r.stack) {
		depth = len(r.stack)
	}
	r.buf = r.buf[:0]
	r.closeTo(depth)
	prefix := ""
	var parent *frame
	if depth > 0 {
		parent = &r.stack[depth-1]
		prefix = parent.prefix
		parent.children = true
	}
	for len(r.counters) <= depth {
		r.counters = append(r.counters, 0)
	}
	r.counters = r.counters[:depth+1]
	if b.Type == "numbered_list_item" {
		r.counters[depth]++
	} else {
		r.counters[depth] = 0
	}
	f := frame{typ: b.Type, prefix: prefix}
	if parent != nil && parent.typ == "table" {
		if b.Type == "table_row" {
			r.row(parent, prefix, b)
		}
		r.stack = append(r.stack, f)
		return r.flush()
	}
	r.block(&f, prefix, b, r.counters[depth])
	r.stack = append(r.stack, f)
	return r.flush()
}

// Close ends the open toggles and flushes the output.
func (r *Renderer) Close() error {
	if r.err != nil {
		return r.err
	}
	r.buf = r.buf[:0]
	r.closeTo(0)
	if err := r.flush(); err != nil {
		return err
	}
	if err := r.w.Flush(); err != nil {
		r.err = err
	}
	return r.err
}

func (r *Renderer) flush() error {
	if len(r.buf) == 0 {
		return nil
	}
	if _, err := r.w.Write(r.buf); err != nil {
		r.err = err
	}
	r.buf = r.buf[:0]
	return r.err
}

// closeTo ends the frames at depth and below it, innermost first.
func (r *Renderer) closeTo(depth int) {
	for len(r.stack) > depth {
		f := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		if f.closer == "" {
			continue
		}
		outer := ""
		if n := len(r.stack); n > 0 {
			outer = r.stack[n-1].prefix
		}
		if f.children {
			r.blank(outer)
		}
		r.line(outer, f.closer)
		r.prevList, r.prevHTML = false, true
	}
}

// start separates the block about to be written from what came before: a blank line, except
// between list items, which keeps lists tight.
func (r *Renderer) start(prefix string, list bool) {
	q := strings.Count(prefix, ">")
	if r.wrote && !(list && r.prevList && !r.prevHTML && q == r.prevQ) {
		r.blank(prefix)
	}
	r.wrote = true
	r.prevList, r.prevHTML, r.prevQ = list, false, q
}

func (r *Renderer) blank(prefix string) {
	r.buf = append(r.buf, strings.TrimRight(prefix, " ")...)
	r.buf = append(r.buf, '\n')
}

func (r *Renderer) line(prefix, s string) {
	r.buf = append(r.buf, prefix...)
	r.buf = append(r.buf, s...)
	r.buf = append(r.buf, '\n')
}

// text appends rich text as inline Markdown, or the <br> placeholder when it is empty
// (reported, since a lone <br> line is an HTML block).
func (r *Renderer) text(rt blocks.RichText, mode inlineMode) bool {
	n := len(r.buf)
	r.buf, r.scratch = appendInline(r.buf, rt, mode, r.scratch)
	if len(r.buf) == n && !mode.html {
		r.buf = append(r.buf, "<br>"...)
		return true
	}
	return false
}

func (r *Renderer) block(f *frame, p string, b *blocks.Block, number int) {
	c := &b.Content
	switch b.Type {
	case "paragraph":
		r.start(p, false)
		r.buf = append(r.buf, p...)
		r.prevHTML = r.text(c.RichText, inlineMode{})
		r.buf = append(r.buf, '\n')
	case "heading_1", "heading_2", "heading_3":
		level := b.Type[len(b.Type)-1:]
		if c.IsToggleable {
			r.details(f, p, c.RichText, "<h"+level+">", "</h"+level+">")
			return
		}
		r.start(p, false)
		r.buf = append(r.buf, p...)
		r.buf = append(r.buf, "###"[:b.Type[len(b.Type)-1]-'0']...)
		if len(c.RichText) > 0 {
			r.buf = append(r.buf, ' ')
			n := len(r.buf)
			r.buf, r.scratch = appendInline(r.buf, c.RichText, inlineMode{heading: true}, r.scratch)
			if len(r.buf) == n {
				r.buf = r.buf[:n-1]
			}
		}
		r.buf = append(r.buf, '\n')
	case "bulleted_list_item", "numbered_list_item", "to_do":
		marker := "- "
		switch {
		case b.Type == "numbered_list_item":
			marker = strconv.Itoa(number) + ". "
		case b.Type == "to_do" && c.Checked:
			marker = "- [x] "
		case b.Type == "to_do":
			marker = "- [ ] "
		}
		r.start(p, true)
		r.buf = append(r.buf, p...)
		r.buf = append(r.buf, marker...)
		empty := r.text(c.RichText, inlineMode{})
		r.prevHTML = empty && b.Type != "to_do"
		r.buf = append(r.buf, '\n')
		f.prefix = p + strings.Repeat(" ", len(marker))
		if b.Type == "to_do" {
			f.prefix = p + "  "
		}
	case "toggle":
		r.details(f, p, c.RichText, "", "")
	case "quote":
		r.start(p, false)
		r.buf = append(r.buf, p...)
		r.buf = append(r.buf, "> "...)
		r.prevHTML = r.text(c.RichText, inlineMode{})
		r.buf = append(r.buf, '\n')
		f.prefix = p + "> "
	case "callout":
		r.start(p, false)
		r.line(p, "> [!NOTE]")
		icon := ""
		if c.Icon != nil && c.Icon.File == nil {
			icon = c.Icon.Emoji
		}
		if icon != "" || len(c.RichText) > 0 {
			r.buf = append(r.buf, p...)
			r.buf = append(r.buf, "> "...)
			if icon != "" {
				r.buf = append(r.buf, icon...)
				r.buf = append(r.buf, ' ')
			}
			n := len(r.buf)
			r.buf, r.scratch = appendInline(r.buf, c.RichText, inlineMode{}, r.scratch)
			if len(r.buf) == n {
				r.buf = r.buf[:n-1] // no text after the icon
			}
			r.buf = append(r.buf, '\n')
		}
		f.prefix = p + "> "
	case "code":
		r.start(p, false)
		if raw, ok := rawHTMLText(c); ok {
			r.writeRawHTML(p, raw)
			return
		}
		r.code(p, c)
	case "divider":
		r.start(p, false)
		r.line(p, "---")
	case "equation":
		r.start(p, false)
		r.line(p, "$$")
		for _, l := range strings.Split(c.Expression, "\n") {
			if strings.TrimSpace(l) == "$$" {
				// Would end the block; {} is an empty group to KaTeX, and Parse drops it.
				l = strings.Replace(l, "$$", "$${}", 1)
			}
			r.codeLine(p, l)
		}
		r.line(p, "$$")
	case "image":
		r.start(p, false)
		r.image(p, c)
	case "file", "pdf", "video", "audio", "bookmark", "embed":
		url := c.URL
		if b.Type != "bookmark" && b.Type != "embed" {
			url = fileURL(c.File)
		}
		text := c.Caption
		if b.Type == "file" && c.Name != "" {
			text = blocks.Plain(c.Name)
		}
		if len(text) == 0 {
			text = blocks.Plain(url)
		}
		r.start(p, false)
		r.link(p, text, url, b.Type)
	case "table":
		f.width, f.header = c.TableWidth, c.HasColumnHeader
	case "link_to_page", "child_page", "child_database":
		title := c.Title
		if title == "" {
			title = "Untitled"
		}
		r.start(p, false)
		r.link(p, blocks.Plain(title), c.URL, "")
	case "table_of_contents", "breadcrumb":
		r.start(p, false)
		r.line(p, "<!-- "+b.Type+" -->")
		r.prevHTML = true
	}
	// column_list, column and stray table rows write nothing; their children stand at the
	// parent's level.
}

// image writes ![caption](url), or [![caption](url)](link) when the whole caption is one
// link: the form of a badge.
func (r *Renderer) image(p string, c *blocks.Content) {
	caption, link := c.Caption, captionLink(c.Caption)
	r.buf = append(r.buf, p...)
	if link != "" {
		r.buf = append(r.buf, '[')
		caption = make(blocks.RichText, len(c.Caption))
		for i, it := range c.Caption {
			caption[i] = blocks.NewText(it.Text.Content, it.Annotations, "")
		}
	}
	r.buf = append(r.buf, "!["...)
	r.buf, r.scratch = appendInline(r.buf, caption, inlineMode{bracket: true}, r.scratch)
	r.buf = append(r.buf, "]("...)
	r.buf = appendDestination(r.buf, fileURL(c.File))
	r.buf = append(r.buf, ')')
	if link != "" {
		r.buf = append(r.buf, "]("...)
		r.buf = appendDestination(r.buf, link)
		r.buf = append(r.buf, ')')
	}
	r.buf = append(r.buf, '\n')
}

// captionLink is the link of a caption whose every item is text linked to it, or "".
func captionLink(rt blocks.RichText) string {
	if len(rt) == 0 || rt[0].Href == "" {
		return ""
	}
	for _, it := range rt {
		if it.Type != "text" || it.Text == nil || it.Href != rt[0].Href {
			return ""
		}
	}
	return rt[0].Href
}

func fileURL(f *blocks.FileSource) string {
	if f == nil {
		return ""
	}
	return f.URL
}

func (r *Renderer) link(p string, text blocks.RichText, url, title string) {
	r.buf = append(r.buf, p...)
	r.buf = append(r.buf, '[')
	n := len(r.buf)
	r.buf, r.scratch = appendInline(r.buf, text, inlineMode{bracket: true}, r.scratch)
	if len(r.buf) == n {
		r.buf = append(r.buf, "<br>"...) // an empty link text would not parse as a link
	}
	r.buf = append(r.buf, "]("...)
	r.buf = appendDestination(r.buf, url)
	if title != "" {
		r.buf = append(r.buf, ` "`...)
		r.buf = append(r.buf, title...)
		r.buf = append(r.buf, '"')
	}
	r.buf = append(r.buf, ")\n"...)
}

// details opens a toggle; its children follow unindented and closeTo writes </details>.
func (r *Renderer) details(f *frame, p string, rt blocks.RichText, open, close string) {
	r.start(p, false)
	r.line(p, "<details>")
	r.buf = append(r.buf, p...)
	r.buf = append(r.buf, "<summary>"...)
	r.buf = append(r.buf, open...)
	r.text(rt, inlineMode{html: true})
	r.buf = append(r.buf, close...)
	r.buf = append(r.buf, "</summary>\n"...)
	f.closer = "</details>"
	r.prevHTML = true
}

func (r *Renderer) codeLine(p, l string) {
	if l == "" {
		r.blank(p)
		return
	}
	r.line(p, l)
}

func (r *Renderer) code(p string, c *blocks.Content) {
	var sb strings.Builder
	for _, it := range c.RichText {
		sb.WriteString(it.PlainText)
	}
	body := sb.String()
	// The fence is longer than any run of backticks that starts a line of the code.
	n := 3
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimLeft(l, " ")
		k := len(t) - len(strings.TrimLeft(t, "`"))
		if k >= n {
			n = k + 1
		}
	}
	fence := strings.Repeat("`", n)
	r.line(p, fence+fenceLanguage(c.Language))
	if body != "" {
		for _, l := range strings.Split(body, "\n") {
			r.codeLine(p, l)
		}
	}
	r.line(p, fence)
}

// row writes a table row; the first one brings the header and delimiter rows.
func (r *Renderer) row(t *frame, p string, b *blocks.Block) {
	width := t.width
	if width < 1 {
		width = len(b.Content.Cells)
	}
	if width < 1 {
		return
	}
	if t.rows == 0 {
		r.start(p, false)
		if !t.header {
			r.cells(p, nil, width)
		} else {
			r.cells(p, b.Content.Cells, width)
		}
		r.buf = append(r.buf, p...)
		for i := 0; i < width; i++ {
			r.buf = append(r.buf, "| --- "...)
		}
		r.buf = append(r.buf, "|\n"...)
		t.rows++
		if t.header {
			return
		}
	}
	r.cells(p, b.Content.Cells, width)
	t.rows++
}

func (r *Renderer) cells(p string, cells []blocks.RichText, width int) {
	r.buf = append(r.buf, p...)
	r.buf = append(r.buf, '|')
	for i := 0; i < width; i++ {
		r.buf = append(r.buf, ' ')
		if i < len(cells) {
			r.buf, r.scratch = appendInline(r.buf, cells[i], inlineMode{cell: true}, r.scratch)
		}
		r.buf = append(r.buf, " |"...)
	}
	r.buf = append(r.buf, '\n')
}
