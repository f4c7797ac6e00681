package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
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

// jsonBodies makes the JSON formats write each answer once, from a pooled buffer: a jsonAppender
// body appends its own JSON to it, any other body goes through the format's encoder into it; the
// stored file references in it are then presented (service.PresentFiles: signed URLs for upload
// ids) and the whole is written with the trailing newline encoding/json's Encoder writes. Before,
// a page of 100 children (85 KB) was built in a fresh slice grown by doubling, copied into a
// bytes.Buffer grown the same way, then written: growing and copying were 7% of its CPU. The
// buffer is the answer's bytes only while it is written (a ResponseWriter keeps nothing of a
// Write, and the idempotency capture copies), so pooling it shares nothing across requests.
func (s *Server) jsonBodies(formats map[string]huma.Format) map[string]huma.Format {
	out := make(map[string]huma.Format, len(formats))
	for ct, f := range formats {
		if marshal := f.Marshal; marshal != nil && strings.Contains(ct, "json") {
			f.Marshal = func(w io.Writer, v any) error {
				bp := bodyBuffers.Get().(*[]byte)
				defer putBodyBuffer(bp)
				b, err := appendBody((*bp)[:0], v, marshal)
				*bp = b[:0] // keep what it grew to
				if err != nil {
					return err
				}
				b = s.svc.PresentFiles(context.Background(), b)
				setContentLength(w, len(b))
				_, err = w.Write(b)
				return err
			}
		}
		out[ct] = f
	}
	return out
}

// setContentLength gives an answer written in one Write of n bytes its Content-Length. huma has
// set the status already, but the middleware's writer (statusWriter) holds it back until the
// body, so the header still goes out. net/http sends a body beyond its 2 KB buffer chunked when
// it has no length: a 90 KB page of children went out in three writes (4 KB, the rest, the
// closing chunk) where it now goes out in two. A shorter body is left to net/http, which finds
// it whole in its buffer at the handler's end and sets the same header itself, without the
// header values this would allocate.
func setContentLength(w io.Writer, n int) {
	const netHTTPBuffer = 2048 // net/http's bufferBeforeChunkingSize
	if rw, ok := w.(http.ResponseWriter); ok && n > netHTTPBuffer {
		if h := rw.Header(); h["Content-Length"] == nil && h["Content-Encoding"] == nil {
			h["Content-Length"] = []string{strconv.Itoa(n)}
		}
	}
}

// appendBody appends v's JSON and a newline to dst.
func appendBody(dst []byte, v any, marshal func(io.Writer, any) error) ([]byte, error) {
	if a, ok := v.(jsonAppender); ok {
		if b, ok := a.appendJSON(dst); ok {
			return append(b, '\n'), nil
		}
	}
	buf := bytes.NewBuffer(dst)
	err := marshal(buf, v)
	return buf.Bytes(), err
}

// bodyBuffers holds answer buffers between requests; one grown past maxPooledBody (a long
// Markdown export) is left to the collector rather than kept for the rare answer that size.
var bodyBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

const maxPooledBody = 1 << 20

func putBodyBuffer(bp *[]byte) {
	if cap(*bp) <= maxPooledBody {
		bodyBuffers.Put(bp)
	}
}

// appendJSON writes the list when its items write themselves.
func (l list[T]) appendJSON(dst []byte) ([]byte, bool) {
	if len(l.Results) == 0 {
		return dst, false
	}
	if _, ok := any(&l.Results[0]).(jsonAppender); !ok {
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
		// Through a pointer: an item boxed by value is copied to the heap, one per item.
		if dst, ok = any(&l.Results[i]).(jsonAppender).appendJSON(dst); !ok {
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
func (o blockObject) appendJSON(dst []byte) ([]byte, bool) {
	b := o.b
	dst = append(dst, `{"object":"block","id":`...)
	dst = appendString(dst, b.ID)
	dst = append(dst, `,"parent":`...)
	dst = newParent(o.parentType, b.ParentID).appendJSON(dst)
	dst = append(dst, `,"created_time":"`...)
	at := len(dst)
	dst = quire.AppendMillis(dst, b.CreatedMs)
	created := len(dst)
	dst = append(dst, `","last_edited_time":"`...)
	if b.EditedMs == b.CreatedMs { // a block never edited since: the same digits again
		dst = append(dst, dst[at:created]...)
	} else {
		dst = quire.AppendMillis(dst, b.EditedMs)
	}
	dst = append(dst, `","created_by":{"object":"user","id":`...)
	dst = appendString(dst, b.CreatedBy)
	dst = append(dst, `},"last_edited_by":{"object":"user","id":`...)
	dst = appendString(dst, b.EditedBy)
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

// appendString appends s as a JSON string, escaped as huma's JSON format escapes it
// (encoding/json without HTML escaping). Ids, times and type names are plain ASCII and are
// copied as they are; anything else goes through encoding/json.
func appendString(dst []byte, s string) []byte {
	if !plainJSON(s) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// plainJSON tells whether s goes into a JSON string as it is: printable ASCII without a quote
// or a backslash. Eight bytes are tested at once (a page of children checks five ids, two
// times and a type name per block, 22 KB an answer; byte by byte that was 3% of its CPU): a
// byte below 0x20 and a zero byte after an XOR with '"' or '\\' each borrow into their high bit
// (the usual has-less-than and has-zero tests, exact for "any byte"), as does a byte >= 0x80.
func plainJSON(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q, bs := x^(ones*'"'), x^(ones*'\\')
		if (x|(x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
