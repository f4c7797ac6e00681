package properties

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonread"
)

// cursor reads stored values in exactly the shape MarshalValues writes them, so that most of
// their bytes can be copied into the read shape instead of decoded and written again. It takes
// nothing else: whatever it does not take is read by readValue (the reference), which it never
// contradicts (FuzzAppendStored).
type cursor struct {
	b []byte
	i int
}

// lit consumes s if the bytes at the cursor are s.
func (c *cursor) lit(s string) bool {
	if len(c.b)-c.i >= len(s) && string(c.b[c.i:c.i+len(s)]) == s {
		c.i += len(s)
		return true
	}
	return false
}

// str consumes a JSON string and returns it with its quotes. plain reports that its bytes are
// what blocks.AppendString writes for the text it holds: no escape, valid UTF-8, no U+2028 or
// U+2029 (which the read shape escapes). ok is false when there is no string at the cursor or it
// holds a raw control character (which no JSON reader takes).
func (c *cursor) str() (q []byte, plain, ok bool) {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return nil, false, false
	}
	start := c.i
	plain, ascii := true, true
	for j := start + 1; j < len(c.b); j++ {
		// Eight bytes at a time past the plain ASCII that makes up most stored text: a byte at a
		// time was a third of rendering a page of records (issue 15).
		for j+8 <= len(c.b) && quietWord(binary.LittleEndian.Uint64(c.b[j:])) {
			j += 8
		}
		if j == len(c.b) {
			break
		}
		switch b := c.b[j]; {
		case b == '"':
			c.i = j + 1
			q = c.b[start:c.i]
			if plain && !ascii {
				plain = utf8.Valid(q) && !hasLineSeparator(q)
			}
			return q, plain, true
		case b == '\\':
			plain = false
			j++ // the escaped byte cannot end the string
		case b < 0x20:
			return nil, false, false
		case b >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false, false
}

// quietWord reports whether none of the eight bytes in w is one str looks at: a quote, a
// backslash, a control character or a byte of a multi-byte UTF-8 sequence. Each test is the
// classic "has a zero byte" bit trick; a borrow between bytes only follows a byte that is
// itself flagged, so a word with none of them is never reported as having one.
func quietWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	ctl := (w - 0x20*ones) &^ w
	q := w ^ ('"' * ones)
	bs := w ^ ('\\' * ones)
	return (ctl|(q-ones)&^q|(bs-ones)&^bs|w)&highs == 0
}

// hasLineSeparator reports whether q holds U+2028 or U+2029 (E2 80 A8, E2 80 A9).
func hasLineSeparator(q []byte) bool {
	for i := 0; i+2 < len(q); i++ {
		if q[i] == 0xe2 && q[i+1] == 0x80 && (q[i+2] == 0xa8 || q[i+2] == 0xa9) {
			return true
		}
	}
	return false
}

// appendStr appends the read shape of the string q (quoted, as str returned it): its bytes
// when plain, else the text it holds as AppendString writes it.
func appendStr(dst, q []byte, plain bool) ([]byte, bool) {
	if plain {
		return append(dst, q...), true
	}
	r := jsonread.New(q)
	s := r.Text()
	if !r.End() {
		return dst, false
	}
	return blocks.AppendString(dst, s), true
}

// copyStr consumes a string that the read shape holds as it is (escapes aside). When the
// string is not plain, the bytes from mark up to it are copied to dst, then the string
// rewritten, and mark moved past it: copying the rest is the caller's.
func (c *cursor) copyStr(dst []byte, mark *int, nonEmpty bool) ([]byte, bool) {
	start := c.i
	q, plain, ok := c.str()
	if !ok || (nonEmpty && len(q) == 2) {
		return dst, false
	}
	if plain {
		return dst, true
	}
	dst = append(dst, c.b[*mark:start]...)
	*mark = c.i
	return appendStr(dst, q, false)
}

// copyBool consumes true or false.
func (c *cursor) copyBool() bool { return c.lit("true") || c.lit("false") }

// richText copies a stored rich-text array, which is AppendRichText's read shape with <, > and
// & escaped, when each item has exactly the fields, in the order, that blocks.AppendItem
// writes for a text or an equation; ok is false for anything else (a mention, a field
// AppendItem would write differently: an empty colour reads as "default", an empty href as
// null). With short, the array is a short form (values_short.go): each string in it is written
// out as the plain item it stands for, each object copied as above.
func (c *cursor) richText(dst []byte, short bool) ([]byte, bool) {
	mark := c.i
	if !c.lit("[") {
		return dst, false
	}
	for n := 0; ; n++ {
		if c.lit("]") {
			return append(dst, c.b[mark:c.i]...), true
		}
		if n > 0 && !c.lit(",") {
			return dst, false
		}
		var ok bool
		if short && c.i < len(c.b) && c.b[c.i] == '"' {
			dst = append(dst, c.b[mark:c.i]...)
			var q []byte
			var plain bool
			if q, plain, ok = c.str(); !ok {
				return dst, false
			}
			if dst, ok = appendPlainItem(dst, q, plain); !ok {
				return dst, false
			}
			mark = c.i
			continue
		}
		if dst, ok = c.item(dst, &mark); !ok {
			return dst, false
		}
	}
}

// appendPlainItem appends AppendItem's read shape of the plain item whose content is the
// string q (quoted, as str returned it).
func appendPlainItem(dst, q []byte, plain bool) ([]byte, bool) {
	dst = append(dst, `{"type":"text","text":{"content":`...)
	start := len(dst)
	dst, ok := appendStr(dst, q, plain)
	if !ok {
		return dst, false
	}
	text := dst[start:]
	dst = append(dst, `,"link":null},"annotations":{"bold":false,"italic":false,"strikethrough":false,"underline":false,"code":false,`+
		`"text_color":"default","background_color":"default"},"plain_text":`...)
	dst = append(dst, text...)
	return append(dst, `,"href":null}`...), true
}

func (c *cursor) item(dst []byte, mark *int) ([]byte, bool) {
	ok := true
	switch {
	case c.lit(`{"type":"text","text":{"content":`):
		dst, ok = c.copyStr(dst, mark, false)
		switch {
		case !ok:
		case c.lit(`,"link":null}`):
		case c.lit(`,"link":{"url":`):
			dst, ok = c.copyStr(dst, mark, false)
			ok = ok && c.lit(`}}`)
		default:
			ok = false
		}
	case c.lit(`{"type":"equation","equation":{"expression":`):
		dst, ok = c.copyStr(dst, mark, false)
		ok = ok && c.lit(`}`)
	default:
		return dst, false
	}
	ok = ok && c.lit(`,"annotations":{"bold":`) && c.copyBool() && c.lit(`,"italic":`) && c.copyBool() &&
		c.lit(`,"strikethrough":`) && c.copyBool() && c.lit(`,"underline":`) && c.copyBool() && c.lit(`,"code":`) && c.copyBool() &&
		c.lit(`,"text_color":`)
	if ok {
		dst, ok = c.copyStr(dst, mark, true)
	}
	ok = ok && c.lit(`,"background_color":`)
	if ok {
		dst, ok = c.copyStr(dst, mark, true)
	}
	ok = ok && c.lit(`},"plain_text":`)
	if ok {
		dst, ok = c.copyStr(dst, mark, false)
	}
	ok = ok && c.lit(`,"href":`)
	if ok && !c.lit("null") {
		dst, ok = c.copyStr(dst, mark, true)
	}
	return dst, ok && c.lit("}")
}

// valueEnd returns the index just past the JSON value that starts at b[i], found by brackets
// and quotes alone (-1 when b ends first): the value is read for what it is afterwards.
func valueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			if i = stringEnd(b, i); i < 0 {
				return -1
			}
		case '{', '[':
			depth++
			continue
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				return i
			}
			continue
		default:
			continue
		}
		if depth == 0 {
			return i + 1
		}
		if depth < 0 {
			return i
		}
	}
	if depth == 0 {
		return i
	}
	return -1
}

// stringEnd returns the index of the quote that ends the string opening at b[i] (-1 for none).
func stringEnd(b []byte, i int) int {
	for {
		k := bytes.IndexByte(b[i+1:], '"')
		if k < 0 {
			return -1
		}
		i += 1 + k
		escapes := 0
		for j := i - 1; b[j] == '\\'; j-- {
			escapes++
		}
		if escapes%2 == 0 {
			return i
		}
	}
}
