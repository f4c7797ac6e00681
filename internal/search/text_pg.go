package search

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// BlockTextPostgres is a block's searchable text as PostgreSQL's quire_content_text computes it
// (migration 00028): the content read as jsonb, walked by `strict $.**` (each value before
// what it holds, an object's members in jsonb's order of keys: shorter first, then by bytes),
// and for every object whose plain_text or expression member is a string, its plain_text or
// else its expression, joined by spaces. The store writes these entries itself on PostgreSQL
// so that the statement trigger has fewer blocks to read (docs/performance.md, "PostgreSQL
// append, thirteenth pass").
//
// ok is false for content this reading may not match exactly, which the trigger then reads
// itself: anything text.go refuses (a lone surrogate, a raw control character, JSON5, a NUL
// escape), an object with a repeated key (jsonb keeps the last) or a key with an escape, a
// plain_text member that is not a string
// (the trigger would write its JSON text), a number whose exponent
// jsonb's numeric may not hold, and invalid UTF-8.
func BlockTextPostgres(content []byte) (text string, ok bool) {
	if !utf8.Valid(content) {
		return "", false
	}
	p := pgTextParsers.Get().(*pgTextParser)
	defer func() {
		clear(p.stack[:cap(p.stack)])
		p.stack, p.s = p.stack[:0], textScanner{}
		pgTextParsers.Put(p)
	}()
	p.s = textScanner{src: content}
	p.s.space()
	v, ok := p.value(false)
	if !ok {
		return "", false
	}
	p.s.space()
	if p.s.pos != len(content) {
		return "", false
	}
	return strings.Join(v.texts, " "), true
}

// jsonbValue is what BlockTextPostgres keeps of a JSON value: its kind, a string's text when
// it is the value of plain_text or expression, and the texts the value holds, in the order of
// `strict $.**` (computed as soon as the value is read, so no tree is kept).
type jsonbValue struct {
	kind  byte // 's' string, 'o' object, 'a' array, 'x' anything else
	str   string
	texts []string
}

// jsonbMember is a member of an object being read, its key as written (BlockTextPostgres
// refuses keys with escapes, so as written is as jsonb keeps it).
type jsonbMember struct {
	key []byte
	val jsonbValue
}

// pgTextParsers keep their stacks between blocks: an append reads a hundred.
var pgTextParsers = sync.Pool{New: func() any { return &pgTextParser{stack: make([]jsonbMember, 0, 24)} }}

type pgTextParser struct {
	s     textScanner
	stack []jsonbMember // the members of the objects being read, innermost last
}

// value reads one JSON value with text.go's scanner; keep says it is the value of a plain_text
// or expression member, whose text is kept.
func (p *pgTextParser) value(keep bool) (jsonbValue, bool) {
	s := &p.s
	if s.pos >= len(s.src) {
		return jsonbValue{}, false
	}
	switch c := s.src[s.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		if s.depth == maxTextDepth {
			return jsonbValue{}, false
		}
		s.depth++
		defer func() { s.depth-- }()
		v := jsonbValue{kind: 'a'}
		ok := s.members(']', func() bool {
			e, ok := p.value(false)
			v.texts = joinTexts(v.texts, e.texts)
			return ok
		})
		return v, ok
	case c == '"':
		if !keep {
			return jsonbValue{kind: 's'}, p.skipString()
		}
		str, ok := s.str()
		return jsonbValue{kind: 's', str: str}, ok
	case c == 't':
		return jsonbValue{kind: 'x'}, s.literal("true")
	case c == 'f':
		return jsonbValue{kind: 'x'}, s.literal("false")
	case c == 'n':
		return jsonbValue{kind: 'x'}, s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		start := s.pos
		if !s.number() {
			return jsonbValue{}, false
		}
		// numeric holds exponents of a few thousand at most; content has none near that.
		n := s.src[start:s.pos]
		if e := bytes.IndexAny(n, "eE"); e >= 0 && len(n)-e > 4 {
			return jsonbValue{}, false
		}
		return jsonbValue{kind: 'x'}, true
	}
	return jsonbValue{}, false
}

// object reads an object: its own text first (its plain_text, or else its expression, when a
// string), then its members' texts in jsonb's order of keys (shorter first, then by bytes). A
// repeated key (jsonb keeps the last) or a plain_text that is not a string (the trigger would
// write its JSON text) is refused.
func (p *pgTextParser) object() (jsonbValue, bool) {
	s := &p.s
	if s.depth == maxTextDepth {
		return jsonbValue{}, false
	}
	s.depth++
	defer func() { s.depth-- }()
	mark := len(p.stack)
	defer func() { p.stack = p.stack[:mark] }()
	ok := s.members('}', func() bool {
		key, ok := p.key()
		if !ok {
			return false
		}
		s.space()
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			return false
		}
		s.pos++
		s.space()
		val, ok := p.value(string(key) == "plain_text" || string(key) == "expression")
		p.stack = append(p.stack, jsonbMember{key: key, val: val})
		return ok
	})
	if !ok {
		return jsonbValue{}, false
	}
	members := p.stack[mark:]
	slices.SortFunc(members, func(a, b jsonbMember) int {
		return cmp.Or(cmp.Compare(len(a.key), len(b.key)), bytes.Compare(a.key, b.key))
	})
	var plain, expr *jsonbValue
	for i := range members {
		m := &members[i]
		if i > 0 && bytes.Equal(members[i-1].key, m.key) {
			return jsonbValue{}, false
		}
		switch string(m.key) {
		case "plain_text":
			plain = &m.val
		case "expression":
			expr = &m.val
		}
	}
	v := jsonbValue{kind: 'o'}
	switch {
	case plain != nil && plain.kind != 's':
		return jsonbValue{}, false
	case plain != nil:
		v.texts = []string{plain.str}
	case expr != nil && expr.kind == 's':
		v.texts = []string{expr.str}
	}
	for _, m := range members {
		v.texts = joinTexts(v.texts, m.val.texts)
	}
	return v, true
}

// joinTexts is a's texts then b's, reusing a slice where one is empty.
func joinTexts(a, b []string) []string {
	switch {
	case len(b) == 0:
		return a
	case len(a) == 0:
		return b
	}
	return append(slices.Clip(a), b...)
}

// key reads an object's key as written; a key with an escape or a control character is
// refused (jsonb compares keys unescaped; content Quire writes has no such key).
func (p *pgTextParser) key() ([]byte, bool) {
	s := &p.s
	if s.pos >= len(s.src) || s.src[s.pos] != '"' {
		return nil, false
	}
	start := s.pos + 1
	for i := start; i < len(s.src); i++ {
		switch c := s.src[i]; {
		case c == '"':
			s.pos = i + 1
			return s.src[start:i], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// skipString reads a string whose text is not kept, refusing what str refuses; without an
// escape it copies nothing.
func (p *pgTextParser) skipString() bool {
	s := &p.s
	for i := s.pos + 1; i < len(s.src); i++ {
		switch c := s.src[i]; {
		case c == '"':
			s.pos = i + 1
			return true
		case c == '\\':
			_, ok := s.str()
			return ok
		case c < 0x20:
			return false
		}
	}
	return false
}
