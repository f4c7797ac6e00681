package markdown

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"

	"github.com/quire-dev/quire/internal/blocks"
)

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
			if c.onlyHTML(first) {
				break // kept as a raw HTML child
			}
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
			if c.onlyHTML(first) {
				break // kept as a raw HTML child
			}
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

func trimRightSpace(rt blocks.RichText) blocks.RichText {
	for len(rt) > 0 && rt[len(rt)-1].Type == "text" {
		it := rt[len(rt)-1]
		s := strings.TrimRight(it.Text.Content, " ")
		if s != "" {
			rt[len(rt)-1] = blocks.NewText(s, it.Annotations, it.Href)
			return rt
		}
		rt = rt[:len(rt)-1]
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
