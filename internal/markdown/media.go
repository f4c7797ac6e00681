package markdown

import (
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"

	"github.com/quire-dev/quire/internal/blocks"
)

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
