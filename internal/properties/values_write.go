package properties

import (
	"slices"

	"github.com/quire-dev/quire/internal/blocks"
)

// MarshalValues returns the stored form of v (the nodes row's properties of a record): the
// bytes encoding/json wrote from map[string]storedValue (keys sorted, empty fields left out,
// <, > and & escaped), written by hand because a mutation batch stores a hundred of them and
// the reflection cost more than the rest of the encoding. TestMarshalValues holds the two equal.
// Rich texts are written in their short form (values_short.go).
func MarshalValues(v Values) []byte { return marshalValues(v, true) }

// marshalValues writes v with its rich texts in the short form ("r") or in full ("rt").
func marshalValues(v Values, short bool) []byte {
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
		dst = blocks.AppendStringAsJSON(dst, id)
		dst = append(dst, ':')
		dst = appendStored(dst, v[id], short)
	}
	return append(dst, '}')
}

// appendStored writes one storedValue's fields in their struct order, as omitempty leaves them.
func appendStored(dst []byte, val Value, short bool) []byte {
	dst = append(dst, `{"t":`...)
	dst = blocks.AppendStringAsJSON(dst, val.Type)
	if val.RichText != nil && short {
		dst = append(dst, `,"r":`...)
		dst = appendShortRichText(dst, val.RichText)
	} else if val.RichText != nil {
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
			dst = blocks.AppendStringAsJSON(dst, id)
		}
		dst = append(dst, ']')
	}
	dst = storedField(dst, "db", val.DatabaseID)
	if d := val.Date; d != nil {
		dst = append(dst, `,"d":{"s":`...)
		dst = blocks.AppendStringAsJSON(dst, d.Start)
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
				dst = blocks.AppendStringAsJSON(dst, f.Name)
				dst = append(dst, ',')
			}
			dst = append(dst, `"t":`...)
			dst = blocks.AppendStringAsJSON(dst, f.Type)
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
	return blocks.AppendStringAsJSON(dst, s)
}

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

const hexDigits = "0123456789abcdef"
