package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// canonicalIDs turns every id a request carries in the dashless form (32 hex digits, as in
// Notion's page links) into the canonical one, before anything routes or reads it: path segments,
// query parameters named id, …_id or after, and in a JSON body the string values of keys named so
// (and the items of page_sort and …_ids arrays). Everything behind this (access checks, decoders,
// SQL) then knows one form. Free text is never touched, even when it is 32 hex digits (an MD5 sum
// in a paragraph): only values where the API takes an id are.
func canonicalIDs(r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/v2/") {
		return
	}
	r.URL.Path = canonicalSegments(r.URL.Path)
	if r.URL.RawPath != "" {
		r.URL.RawPath = canonicalSegments(r.URL.RawPath)
	}
	if r.URL.RawQuery != "" && strings.Contains(r.URL.RawQuery, "=") {
		q, changed := r.URL.Query(), false
		for k, vs := range q {
			if idKey(k) {
				for i, v := range vs {
					if id, ok := quire.DashlessID(v); ok {
						vs[i], changed = id, true
					}
				}
			}
		}
		if changed {
			r.URL.RawQuery = q.Encode()
		}
	}
	if r.Body != nil && r.Body != http.NoBody && strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		canonicalBody(r)
	}
}

func canonicalSegments(p string) string {
	if !strings.Contains(p, "/") {
		return p
	}
	segs := strings.Split(p, "/")
	changed := false
	for i, s := range segs {
		if id, ok := quire.DashlessID(s); ok {
			segs[i], changed = id, true
		}
	}
	if !changed {
		return p
	}
	return strings.Join(segs, "/")
}

// idKey reports whether a key's value is an id (or, for an array, holds ids).
func idKey(k string) bool {
	return k == "id" || k == "after" || k == "page_sort" || strings.HasSuffix(k, "_id") || strings.HasSuffix(k, "_ids")
}

// canonicalBody rewrites the dashless ids of a JSON body when the body is first read: by the
// operation, after the access checks and under its read deadline, as the body itself would be.
func canonicalBody(r *http.Request) {
	r.Body = &idBody{src: r.Body}
}

// idBody is a request body whose first Read takes in the whole body (up to the size limit, past
// which it is left as sent for the limit to refuse) and rewrites its ids. A read error (a client
// that sent less than its Content-Length) is passed on as it came.
type idBody struct {
	src  io.ReadCloser
	rd   io.Reader
	read bool
}

func (b *idBody) Read(p []byte) (int, error) {
	if !b.read {
		b.read = true
		head, err := io.ReadAll(io.LimitReader(b.src, maxBody+1))
		switch {
		case err != nil:
			b.rd = io.MultiReader(bytes.NewReader(head), errReader{err})
		case len(head) > maxBody:
			b.rd = io.MultiReader(bytes.NewReader(head), b.src)
		default:
			b.rd = bytes.NewReader(rewriteIDs(head))
		}
	}
	return b.rd.Read(p)
}

func (b *idBody) Close() error { return b.src.Close() }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// rewriteIDs returns body with the dashless ids at id keys in canonical form. Most bodies hold
// none, which one scan for a quoted run of 32 hex digits tells without decoding them.
func rewriteIDs(body []byte) []byte {
	if !hasDashless(body) {
		return body
	}
	type frame struct {
		obj     bool
		wantKey bool
		key     string // the key whose value is being read; an array's items take the array's
	}
	var stack []frame
	var at []int // offsets of the opening quotes to rewrite
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				key := ""
				if top != nil {
					key = top.key
				}
				stack = append(stack, frame{obj: v == '{', wantKey: v == '{', key: key})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if top != nil && top.obj && top.wantKey {
				top.key, top.wantKey = v, false
				continue
			}
			end := int(dec.InputOffset())
			if top != nil && idKey(top.key) && end >= 34 && body[end-34] == '"' && body[end-1] == '"' {
				if _, ok := quire.DashlessID(string(body[end-33 : end-1])); ok {
					at = append(at, end-34)
				}
			}
		}
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].wantKey = true
		}
	}
	if len(at) == 0 {
		return body
	}
	out := make([]byte, 0, len(body)+4*len(at))
	prev := 0
	for _, q := range at {
		id, _ := quire.DashlessID(string(body[q+1 : q+33]))
		out = append(append(append(out, body[prev:q+1]...), id...), '"')
		prev = q + 34
	}
	return append(out, body[prev:]...)
}

// hasDashless reports whether body holds a string of exactly 32 hex digits.
func hasDashless(body []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(body[i:], '"')
		if j < 0 {
			return false
		}
		i += j + 1
		if i+33 <= len(body) && body[i+32] == '"' && allHex(body[i:i+32]) {
			return true
		}
	}
}

func allHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
