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
