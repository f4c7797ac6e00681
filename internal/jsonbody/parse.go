// Package jsonbody reads a write request's JSON body once, from its bytes, and offers the
// path-aware helpers every decoder uses (blocks, properties, views, mind maps, the service's
// bodies), so that each problem is reported at a path like
// `children[2].paragraph.rich_text[0].text.content` and no package keeps its own copies.
//
// Parse builds the generic tree encoding/json would (objects as map[string]any, arrays as
// []any, numbers as float64), checking each string and key as it is read: U+0000 is refused at
// its path (PostgreSQL's text and jsonb cannot store it, so the same request would succeed on
// SQLite and fail on PostgreSQL), and bytes that are no UTF-8 become U+FFFD, as encoding/json
// makes them. An id written in the dashless form (32 hex digits, as in Notion's page links) at
// a key where the API takes an id (IDKey) is read in its canonical form, so everything behind
// the decoders knows one form; free text that happens to be 32 hex digits is kept as written.
package jsonbody

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/quire"
)

// maxDepth bounds nesting as encoding/json bounds its own, so that a hostile body cannot
// exhaust the stack.
const maxDepth = 10000

// MessageNUL is the message of a string or key that holds U+0000.
const MessageNUL = "Text must not contain the NUL character (U+0000)."

// Parse reads body, which must be one JSON object. The error is an invalid_json *quire.Error
// when body is not JSON (its message says where) or not an object, or a validation_error
// listing every string or key that holds U+0000.
func Parse(body []byte) (map[string]any, error) {
	v, _, err := parse(body, false, true)
	m, _ := v.(map[string]any)
	return m, err
}

// ParseValue is Parse for a document that may be any JSON value (a children array).
func ParseValue(doc []byte) (any, error) {
	v, _, err := parse(doc, false, false)
	return v, err
}

// ParseOrdered is ParseValue that also returns, when doc is an object, its keys in the order
// they first appear (a schema's properties are created in that order).
func ParseOrdered(doc []byte) (any, []string, error) {
	p, v, err := run(doc, false, false)
	return v, p.order, err
}

// ParseMembers is Parse that also returns each member's bytes (slices of body): the decoders
// that need a member's key order (a schema's properties) or keep it for a later stage (a
// query's filter) read them from there.
func ParseMembers(body []byte) (map[string]any, map[string]json.RawMessage, error) {
	v, members, err := parse(body, true, true)
	m, _ := v.(map[string]any)
	return m, members, err
}

func parse(body []byte, members, object bool) (any, map[string]json.RawMessage, error) {
	p, v, err := run(body, members, object)
	return v, p.members, err
}

func run(body []byte, members, object bool) (*parser, any, error) {
	p := &parser{b: body}
	if members {
		p.members = map[string]json.RawMessage{}
	}
	p.space()
	if object && p.i < len(p.b) && p.b[p.i] != '{' {
		return p, nil, notObject()
	}
	v := p.value()
	p.space()
	if p.err == "" && p.i < len(p.b) {
		p.fail("more data after the JSON value")
	}
	if p.err != "" {
		return p, nil, p.syntaxError()
	}
	if len(p.nul) > 0 {
		slices.Sort(p.nul)
		var probs quire.Problems
		for _, path := range slices.Compact(p.nul) {
			probs.Add(path, quire.ReasonInvalidValue, MessageNUL)
		}
		return p, nil, probs.Err()
	}
	return p, v, nil
}

func notObject() error {
	return &quire.Error{Code: quire.CodeInvalidJSON, Message: "The request body is not a JSON object."}
}

// segment is one step of the path to the value being read: a key, or an index when key is
// nil. Paths are built only when a problem needs one.
type segment struct {
	key *string
	i   int
}

type parser struct {
	b       []byte
	i       int
	err     string // the first syntax error; reading stops there
	errAt   int
	stack   []segment
	nul     []string
	members map[string]json.RawMessage
	order   []string // the top-level object's keys, first appearance first
}

func (p *parser) fail(what string) {
	if p.err == "" {
		p.err, p.errAt = what, p.i
	}
}

// syntaxError names the problem and where it is, as line and column (of bytes) in the body.
func (p *parser) syntaxError() error {
	if p.errAt >= len(p.b) && p.err == "unexpected end" {
		return &quire.Error{Code: quire.CodeInvalidJSON, Message: "The request body is not valid JSON: it ends too soon."}
	}
	line, col := 1, 1
	for _, c := range p.b[:min(p.errAt, len(p.b))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &quire.Error{Code: quire.CodeInvalidJSON, Message: "The request body is not valid JSON: " + p.err +
		" at line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col) + "."}
}

// key is the key the value being read stands at: an array's items take the array's key, so
// the items of page_sort or user_ids are read as ids too.
func (p *parser) key() string {
	for i := len(p.stack) - 1; i >= 0; i-- {
		if k := p.stack[i].key; k != nil {
			return *k
		}
	}
	return ""
}

// IDKey reports whether a key's value is an id (or, for an array, holds ids): id, after,
// before, page_sort, and every …_id and …_ids.
func IDKey(k string) bool {
	return k == "id" || k == "after" || k == "before" || k == "page_sort" || strings.HasSuffix(k, "_id") || strings.HasSuffix(k, "_ids")
}

// path is the current position as the decoders write it.
func (p *parser) path() string {
	path := ""
	for _, s := range p.stack {
		if s.key != nil {
			path = Join(path, *s.key)
		} else {
			path = Index(path, s.i)
		}
	}
	return path
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() any {
	p.space()
	if p.i >= len(p.b) {
		p.fail("unexpected end")
		return nil
	}
	if len(p.stack) > maxDepth {
		p.fail("nesting deeper than " + strconv.Itoa(maxDepth) + " levels")
		return nil
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, nul := p.text()
		if nul {
			p.noteNUL(len(p.stack))
		}
		if len(s) == 32 && IDKey(p.key()) {
			if id, ok := quire.DashlessID(s); ok {
				return id
			}
		}
		return s
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	for _, lit := range []struct {
		s string
		v any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(p.b)-p.i >= len(lit.s) && string(p.b[p.i:p.i+len(lit.s)]) == lit.s {
			p.i += len(lit.s)
			return lit.v
		}
	}
	p.fail("unexpected character " + strconv.QuoteRune(rune(p.b[p.i])))
	return nil
}

func (p *parser) object() any {
	top := len(p.stack) == 0
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return m
	}
	for p.err == "" {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			p.expect("a key in quotes")
			return m
		}
		k, nul := p.text()
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			p.expect("':' after the key")
			return m
		}
		p.i++
		p.stack = append(p.stack, segment{key: &k})
		if nul {
			p.noteNUL(len(p.stack) - 1)
		}
		p.space()
		start := p.i
		if _, dup := m[k]; top && !dup {
			p.order = append(p.order, k)
		}
		m[k] = p.value()
		if top && p.members != nil {
			p.members[k] = p.b[start:p.i]
		}
		p.stack = p.stack[:len(p.stack)-1]
		if !p.next('}') {
			break
		}
	}
	return m
}

func (p *parser) array() any {
	p.i++ // [
	a := []any{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return a
	}
	for p.err == "" {
		p.stack = append(p.stack, segment{i: len(a)})
		a = append(a, p.value())
		p.stack = p.stack[:len(p.stack)-1]
		if !p.next(']') {
			break
		}
	}
	return a
}

// next reads what follows a member or an item: a comma (another comes: true) or the closing
// byte (false; false too after a syntax error).
func (p *parser) next(closing byte) bool {
	p.space()
	switch {
	case p.i < len(p.b) && p.b[p.i] == ',':
		p.i++
		return true
	case p.i < len(p.b) && p.b[p.i] == closing:
		p.i++
		return false
	}
	p.expect("',' or '" + string(closing) + "'")
	return false
}

// expect fails at the current byte, or with "unexpected end" when there is none.
func (p *parser) expect(what string) {
	if p.i >= len(p.b) {
		p.fail("unexpected end")
		return
	}
	p.fail("expected " + what)
}

// noteNUL records the current path as holding U+0000, unless one of the first n keys on it
// already holds one: that key is the problem, and what is under it has no path of its own.
func (p *parser) noteNUL(n int) {
	for _, s := range p.stack[:n] {
		if s.key != nil && strings.IndexByte(*s.key, 0) >= 0 {
			return
		}
	}
	p.nul = append(p.nul, p.path())
}

// text reads a string as encoding/json does: escapes decoded, a lone surrogate and bytes that
// are no UTF-8 replaced by U+FFFD. nul reports an escaped U+0000 (a raw one is no JSON).
func (p *parser) text() (s string, nul bool) {
	p.i++ // "
	start := p.i
	// The common string has no escape and is ASCII or valid UTF-8: one slice, one copy.
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := string(p.b[start:p.i])
			p.i++
			return s, false
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		p.i++
	}
	out := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nul
		case c < 0x20:
			p.fail("control character in a string")
			return "", false
		case c == '\\':
			r, ok := p.escape()
			if !ok {
				return "", false
			}
			nul = nul || r == 0
			out = utf8.AppendRune(out, r)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(p.b[p.i:])
			p.i += size
			out = utf8.AppendRune(out, r) // RuneError for a byte that is no UTF-8
		default:
			out = append(out, c)
			p.i++
		}
	}
	p.fail("unexpected end")
	return "", false
}

// escape reads one backslash escape.
func (p *parser) escape() (rune, bool) {
	if p.i+1 >= len(p.b) {
		p.i = len(p.b)
		p.fail("unexpected end")
		return 0, false
	}
	c := p.b[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		r := p.hex4(p.i)
		if r < 0 {
			p.fail("invalid \\u escape")
			return 0, false
		}
		p.i += 4
		if !utf16.IsSurrogate(r) {
			return r, true
		}
		// A pair is consumed whole; a lone half becomes U+FFFD and what follows is read on
		// its own, as encoding/json does.
		if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
			if dec := utf16.DecodeRune(r, p.hex4(p.i+2)); dec != utf8.RuneError {
				p.i += 6
				return dec, true
			}
		}
		return utf8.RuneError, true
	}
	p.i -= 2
	p.fail("invalid escape")
	return 0, false
}

// hex4 reads four hex digits at i, or returns -1.
func (p *parser) hex4(i int) rune {
	if i+4 > len(p.b) {
		return -1
	}
	var r rune
	for _, c := range p.b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// number reads a JSON number into a float64; one beyond float64's range is refused, as
// encoding/json refuses it.
func (p *parser) number() any {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.digits()
	default:
		p.expect("a digit")
		return nil
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if !p.digits() {
			p.expect("a digit after '.'")
			return nil
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			p.expect("a digit in the exponent")
			return nil
		}
	}
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	if err != nil {
		text := string(p.b[start:p.i])
		p.i = start
		p.fail("number " + text + " is out of range")
		return nil
	}
	return f
}

func (p *parser) digits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}
