package httpapi

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// jsonAppender is a response body that writes its own JSON. A page of 100 blocks through
// encoding/json spent two thirds of its encoding time compacting and re-validating each block's
// stored content (the bytes a json.Marshaler returns are scanned again, byte by byte), and a
// third reflecting over the fields every block shares. The stored content is canonical JSON our
// own encoder wrote (internal/blocks), so it is spliced in as it is.
type jsonAppender interface {
	// appendJSON appends the value's JSON to dst; false (dst unchanged) sends it through
	// encoding/json instead.
	appendJSON(dst []byte) ([]byte, bool)
}

// appendBodies makes the JSON formats write a jsonAppender body itself, with the trailing newline
// encoding/json's Encoder writes; every other body goes through the format as before.
func appendBodies(formats map[string]huma.Format) map[string]huma.Format {
	out := make(map[string]huma.Format, len(formats))
	for ct, f := range formats {
		if marshal := f.Marshal; marshal != nil && strings.Contains(ct, "json") {
			f.Marshal = func(w io.Writer, v any) error {
				if a, ok := v.(jsonAppender); ok {
					if b, ok := a.appendJSON(make([]byte, 0, 4096)); ok {
						_, err := w.Write(append(b, '\n'))
						return err
					}
				}
				return marshal(w, v)
			}
		}
		out[ct] = f
	}
	return out
}

// appendJSON writes the list when its items write themselves.
func (l list[T]) appendJSON(dst []byte) ([]byte, bool) {
	if len(l.Results) == 0 {
		return dst, false
	}
	if _, ok := any(l.Results[0]).(jsonAppender); !ok {
		return dst, false
	}
	start := len(dst)
	dst = append(dst, `{"object":`...)
	dst = appendString(dst, l.Object)
	dst = append(dst, `,"results":[`...)
	for i := range l.Results {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = any(l.Results[i]).(jsonAppender).appendJSON(dst); !ok {
			return dst[:start], false
		}
	}
	dst = append(dst, `],"next_cursor":`...)
	if l.NextCursor == nil {
		dst = append(dst, "null"...)
	} else {
		dst = appendString(dst, *l.NextCursor)
	}
	dst = append(dst, `,"has_more":`...)
	dst = strconv.AppendBool(dst, l.HasMore)
	return append(dst, '}'), true
}

// appendJSON writes the block as encoding/json would write blockDoc, then the type's field.
func (b blockObject) appendJSON(dst []byte) ([]byte, bool) {
	dst = append(dst, `{"object":"block","id":`...)
	dst = appendString(dst, b.ID)
	dst = append(dst, `,"parent":`...)
	dst = b.Parent.appendJSON(dst)
	dst = append(dst, `,"created_time":`...)
	dst = appendString(dst, b.CreatedTime)
	dst = append(dst, `,"last_edited_time":`...)
	dst = appendString(dst, b.LastEditedTime)
	dst = append(dst, `,"created_by":{"object":"user","id":`...)
	dst = appendString(dst, b.CreatedBy)
	dst = append(dst, `},"last_edited_by":{"object":"user","id":`...)
	dst = appendString(dst, b.LastEditedBy)
	dst = append(dst, `},"has_children":`...)
	dst = strconv.AppendBool(dst, b.HasChildren)
	dst = append(dst, `,"in_trash":`...)
	dst = strconv.AppendBool(dst, b.InTrash)
	dst = append(dst, `,"type":`...)
	dst = appendString(dst, b.Type)
	dst = append(dst, ',')
	dst = appendString(dst, b.Type)
	dst = append(dst, ':')
	dst = append(dst, rawOr(b.Content, "{}")...)
	return append(dst, '}'), true
}

// appendJSON writes the parent as encoding/json writes parentObject (its omitempty fields).
func (p parentObject) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = appendString(dst, p.Type)
	if p.Workspace {
		dst = append(dst, `,"workspace":true`...)
	}
	for _, f := range [...]struct{ key, id string }{{"page_id", p.PageID}, {"database_id", p.DatabaseID}, {"block_id", p.BlockID}} {
		if f.id != "" {
			dst = append(dst, `,"`...)
			dst = append(dst, f.key...)
			dst = append(dst, `":`...)
			dst = appendString(dst, f.id)
		}
	}
	return append(dst, '}')
}

// appendString appends s as a JSON string, escaped as encoding/json escapes it. Ids, times and
// type names are plain ASCII and are copied as they are; anything else goes through
// encoding/json.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(dst, q...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
