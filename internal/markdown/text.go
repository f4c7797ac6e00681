package markdown

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"

	"github.com/quire-dev/quire/internal/blocks"
)

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
