package properties

import (
	"slices"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/blocks"
)

// MarshalValues returns the stored form of v (the nodes row's properties of a record): the
// bytes encoding/json wrote from map[string]storedValue (keys sorted, empty fields left out,
// <, > and & escaped), written by hand because a mutation batch stores a hundred of them and
// the reflection cost more than the rest of the encoding. TestMarshalValues holds the two equal.
func MarshalValues(v Values) []byte {
	ids := make([]string, 0, len(v))
	for id := range v {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	dst := make([]byte, 0, 64*len(v))
	dst = append(dst, '{')
	for i, id := range ids {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendStoredString(dst, id)
		dst = append(dst, ':')
		dst = appendStored(dst, v[id])
	}
	return append(dst, '}')
}

// appendStored writes one storedValue's fields in their struct order, as omitempty leaves them.
func appendStored(dst []byte, val Value) []byte {
	dst = append(dst, `{"t":`...)
	dst = appendStoredString(dst, val.Type)
	if val.RichText != nil {
		dst = append(dst, `,"rt":`...)
		start := len(dst)
		dst = blocks.AppendRichText(dst, val.RichText)
		dst = escapeHTML(dst, start)
	}
	if val.Type == "number" {
		dst = append(dst, `,"n":`...)
		dst = appendNumber(dst, val.Number)
	}
	dst = storedField(dst, "s", val.Text)
	if val.Checkbox {
		dst = append(dst, `,"b":true`...)
	}
	dst = storedField(dst, "id", val.ID)
	if len(val.IDs) > 0 {
		dst = append(dst, `,"ids":[`...)
		for i, id := range val.IDs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendStoredString(dst, id)
		}
		dst = append(dst, ']')
	}
	dst = storedField(dst, "db", val.DatabaseID)
	if d := val.Date; d != nil {
		dst = append(dst, `,"d":{"s":`...)
		dst = appendStoredString(dst, d.Start)
		dst = storedField(dst, "e", d.End)
		dst = storedField(dst, "z", d.TimeZone)
		dst = append(dst, '}')
	}
	if len(val.Files) > 0 {
		dst = append(dst, `,"f":[`...)
		for i, f := range val.Files {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '{')
			if f.Name != "" {
				dst = append(dst, `"n":`...)
				dst = appendStoredString(dst, f.Name)
				dst = append(dst, ',')
			}
			dst = append(dst, `"t":`...)
			dst = appendStoredString(dst, f.Type)
			dst = storedField(dst, "u", f.URL)
			dst = storedField(dst, "id", f.UploadID)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// storedField writes ,"key":"s" unless s is empty (omitempty).
func storedField(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return appendStoredString(dst, s)
}

// appendStoredString writes s as encoding/json does by default: <, > and & as \u003c …,
// \b \f \n \r \t by name, other control characters as \u00XX, invalid UTF-8 as \ufffd, and
// U+2028, U+2029 escaped.
func appendStoredString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// escapeHTML escapes <, > and & in dst[start:], JSON that AppendRichText wrote, as
// encoding/json does to a json.RawMessage (they can only be inside its strings).
func escapeHTML(dst []byte, start int) []byte {
	i := start
	for i < len(dst) && dst[i] != '<' && dst[i] != '>' && dst[i] != '&' {
		i++
	}
	if i == len(dst) {
		return dst
	}
	tail := append([]byte(nil), dst[i:]...)
	dst = dst[:i]
	for _, c := range tail {
		if c == '<' || c == '>' || c == '&' {
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}
