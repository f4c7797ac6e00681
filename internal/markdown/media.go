package markdown

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"

	"github.com/quire-dev/quire/internal/blocks"
)

var mediaTitles = map[string]bool{"file": true, "pdf": true, "video": true, "audio": true, "bookmark": true, "embed": true}

func (c *converter) paragraph(n *ast.Paragraph, depth int) []*blocks.Block {
	if c.isLoneBR(n) {
		return []*blocks.Block{{Type: "paragraph"}}
	}
	if c.onlyHTML(n) {
		return rawHTMLBlocks(strings.TrimSuffix(c.lines(n), "\n"))
	}
	if m, ok := n.FirstChild().(*ast.Link); ok && n.ChildCount() == 1 {
		url, title := unescape(m.Destination), unescape(m.Title)
		if mediaTitles[title] && blocks.ValidURL(url) {
			return []*blocks.Block{c.media(title, url, c.inline(m))}
		}
	}
	if imgs := c.images(n); imgs != nil {
		return imgs
	}
	return textBlocks("paragraph", c.inline(n), nil, depth)
}

// images maps a paragraph of images alone, each maybe inside a link, with spaces and line
// breaks between them (a README's row of badges) to image blocks, or returns nil. A linked
// image's caption is its alt text (the link's URL when it has none) linked to the link.
func (c *converter) images(n *ast.Paragraph) []*blocks.Block {
	var out []*blocks.Block
	for k := n.FirstChild(); k != nil; k = k.NextSibling() {
		if t, ok := k.(*ast.Text); ok && len(bytes.TrimSpace(t.Segment.Value(c.src))) == 0 {
			continue
		}
		img, ok := k.(*ast.Image)
		link := ""
		if l, isLink := k.(*ast.Link); isLink && l.ChildCount() == 1 {
			img, ok = l.FirstChild().(*ast.Image)
			link = unescape(l.Destination)
			ok = ok && blocks.ValidURL(link)
		}
		if !ok || !blocks.ValidURL(unescape(img.Destination)) {
			return nil
		}
		caption := fit(merge(c.inline(img)))[0]
		if link != "" {
			caption = linkCaption(caption, link)
		}
		out = append(out, &blocks.Block{Type: "image", Content: blocks.Content{
			File: &blocks.FileSource{Type: "external", URL: unescape(img.Destination)}, Caption: caption}})
	}
	return out
}

// linkCaption links every text item of a caption to url.
func linkCaption(caption blocks.RichText, url string) blocks.RichText {
	if len(caption) == 0 {
		return blocks.RichText{blocks.NewText(url, blocks.Annotations{}, url)}
	}
	for i, it := range caption {
		if it.Type == "text" {
			caption[i] = blocks.NewText(it.Text.Content, it.Annotations, url)
		}
	}
	return caption
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
