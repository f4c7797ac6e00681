package markdown

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"

	"github.com/quire-dev/quire/internal/blocks"
)

// marks is the styling in force while walking inline nodes.
type marks struct {
	bold, italic, strike, code int
	link                       string
}

func (m marks) annotations() blocks.Annotations {
	return blocks.Annotations{Bold: m.bold > 0, Italic: m.italic > 0, Strikethrough: m.strike > 0, Code: m.code > 0}
}

// openA is an <a> tag being read: the link in force before it, and whether it is an
// anchor (<a name="…">, no href), which shows nothing.
type openA struct {
	prev   string
	anchor bool
}

// dropped tracks tags dropped at the edges of a text: the spaces beside them ("<a
// name="x"></a>" then a line break) would otherwise start or end the text.
type dropped struct {
	lead  bool // a tag was dropped before any visible text
	trail bool // … and after the last
}

// inline converts the inline children of n to rich text (not yet merged or split).
func (c *converter) inline(n ast.Node) blocks.RichText {
	var rt blocks.RichText
	var m marks
	var links []openA // <a> tags open
	c.drop = dropped{}
	c.walkInline(n, &rt, &m, &links)
	rt = merge(unstyleSpaces(rt))
	if c.drop.lead {
		rt = trimLeftSpace(rt)
	}
	if c.drop.trail {
		rt = trimRightSpace(rt)
	}
	return rt
}

func (c *converter) add(rt *blocks.RichText, m *marks, s string) {
	if s == "" {
		return
	}
	if strings.TrimSpace(s) != "" {
		c.drop.trail = false
	}
	if m.code > 0 {
		s = codeSafe(s) // <code> and <kbd> text is a code span when exported
	}
	*rt = append(*rt, blocks.NewText(s, m.annotations(), m.link))
}

func endsWithNewline(rt blocks.RichText) bool {
	n := len(rt)
	return n > 0 && rt[n-1].Type == "text" && strings.HasSuffix(rt[n-1].Text.Content, "\n")
}

// dropTag notes a tag that shows nothing.
func (c *converter) dropTag(rt blocks.RichText) {
	if strings.TrimSpace(rt.PlainText()) == "" {
		c.drop.lead = true
	}
	c.drop.trail = true
}

func (c *converter) walkInline(n ast.Node, rt *blocks.RichText, m *marks, links *[]openA) {
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
			case k.SoftLineBreak() && !endsWithNewline(*rt):
				c.add(rt, m, " ") // after a <br> the next line starts a line: no space
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
			// In text an image is its alt text, linked to the image unless it is inside a
			// link (a badge), whose target is where a reader goes.
			if url := unescape(k.Destination); m.link == "" && blocks.ValidURL(url) {
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
			c.drop.trail = false
			*rt = append(*rt, blocks.NewEquation(expr, m.annotations())) // equations carry no link
		case *east.TaskCheckBox:
			// read by listItem
		default:
			c.walkInline(k, rt, m, links)
		}
	}
}

var (
	openTag  = regexp.MustCompile(`(?i)^<(strong|b|em|i|del|s|strike|code|kbd)\s*>$`)
	closeTag = regexp.MustCompile(`(?i)^</(strong|b|em|i|del|s|strike|code|kbd|a)\s*>$`)
	aTag     = regexp.MustCompile(`(?is)^<a(?:\s[^>]*)?>$`)
	imgTag   = regexp.MustCompile(`(?is)^<img\s[^>]*>$`)
	attrs    = regexp.MustCompile(`(?is)\s([a-z][a-z0-9_:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>` + "`" + `]+))`)
)

// attr is the value of the attribute name in a tag, or "".
func attr(tag, name string) string {
	for _, g := range attrs.FindAllStringSubmatch(tag, -1) {
		if strings.EqualFold(g[1], name) {
			return unescape([]byte(g[2] + g[3] + g[4]))
		}
	}
	return ""
}

// tag applies the inline HTML the exporter writes (and the common equivalents): <br>,
// <strong>/<b>, <em>/<i>, <del>/<s>, <code>/<kbd>, <a href>; <img> is its alt text, as a
// Markdown image is. Other tags, <a name> anchors among them, are dropped.
func (c *converter) tag(t string, rt *blocks.RichText, m *marks, links *[]openA) {
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
		case "code", "kbd":
			return &m.code
		}
		return nil
	}
	if g := openTag.FindStringSubmatch(t); g != nil {
		*counter(g[1])++
		return
	}
	if aTag.MatchString(t) {
		href := attr(t, "href")
		*links = append(*links, openA{prev: m.link, anchor: href == ""})
		if blocks.ValidURL(href) {
			m.link = href
		}
		if href == "" {
			c.dropTag(*rt)
		}
		return
	}
	if imgTag.MatchString(t) {
		saved := m.link
		if src := attr(t, "src"); m.link == "" && blocks.ValidURL(src) {
			m.link = src
		}
		if alt := attr(t, "alt"); alt != "" {
			c.add(rt, m, alt)
		} else {
			c.dropTag(*rt)
		}
		m.link = saved
		return
	}
	if g := closeTag.FindStringSubmatch(t); g != nil {
		if strings.EqualFold(g[1], "a") {
			if n := len(*links); n > 0 {
				a := (*links)[n-1]
				m.link, *links = a.prev, (*links)[:n-1]
				if a.anchor {
					c.dropTag(*rt)
				}
			}
			return
		}
		if p := counter(g[1]); *p > 0 {
			*p--
		}
		return
	}
	c.dropTag(*rt)
}
