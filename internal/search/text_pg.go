package search

import (
	"cmp"
	"slices"
	"strings"
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
// itself: anything text.go refuses (a lone surrogate, a raw control character, JSON5), an
// object with a repeated key (jsonb keeps the last), a plain_text member that is not a string
// (the trigger would write its JSON text), a NUL (jsonb refuses it), a number whose exponent
// jsonb's numeric may not hold, and invalid UTF-8.
func BlockTextPostgres(content []byte) (text string, ok bool) {
	if !utf8.Valid(content) {
		return "", false
	}
	p := pgTextParser{s: textScanner{src: content}}
	p.s.space()
	v, ok := p.value()
	if !ok {
		return "", false
	}
	p.s.space()
	if p.s.pos != len(content) {
		return "", false
	}
	var found []string
	if !v.collect(&found) {
		return "", false
	}
	return strings.Join(found, " "), true
}

// jsonbValue is what BlockTextPostgres keeps of a JSON value: a string's text, or the members
// of an object or the elements of an array (keys empty).
type jsonbValue struct {
	kind    byte // 's' string, 'o' object, 'a' array, 'x' anything else
	str     string
	members []jsonbMember
}

type jsonbMember struct {
	key string
	val *jsonbValue
}

// collect appends the texts of v and what it holds in the order of `strict $.**`. It reports
// false when v holds something the trigger may read otherwise (a repeated key, a plain_text
// that is not a string).
func (v *jsonbValue) collect(found *[]string) bool {
	switch v.kind {
	case 'a':
		for _, m := range v.members {
			if !m.val.collect(found) {
				return false
			}
		}
	case 'o':
		slices.SortStableFunc(v.members, func(a, b jsonbMember) int {
			return cmp.Or(cmp.Compare(len(a.key), len(b.key)), strings.Compare(a.key, b.key))
		})
		var plain, expr *jsonbValue
		for i, m := range v.members {
			if i > 0 && v.members[i-1].key == m.key {
				return false
			}
			switch m.key {
			case "plain_text":
				plain = m.val
			case "expression":
				expr = m.val
			}
		}
		switch {
		case plain != nil && plain.kind != 's':
			return false
		case plain != nil:
			*found = append(*found, plain.str)
		case expr != nil && expr.kind == 's':
			*found = append(*found, expr.str)
		}
		for _, m := range v.members {
			if !m.val.collect(found) {
				return false
			}
		}
	}
	return true
}

type pgTextParser struct {
	s textScanner
}

// value reads one JSON value with text.go's scanner.
func (p *pgTextParser) value() (*jsonbValue, bool) {
	s := &p.s
	if s.pos >= len(s.src) {
		return nil, false
	}
	switch c := s.src[s.pos]; {
	case c == '{' || c == '[':
		if s.depth == maxTextDepth {
			return nil, false
		}
		s.depth++
		defer func() { s.depth-- }()
		v, end := &jsonbValue{kind: 'a'}, byte(']')
		if c == '{' {
			v.kind, end = 'o', '}'
		}
		ok := s.members(end, func() bool {
			var m jsonbMember
			if v.kind == 'o' {
				if s.pos >= len(s.src) || s.src[s.pos] != '"' {
					return false
				}
				key, ok := s.str()
				if !ok || strings.IndexByte(key, 0) >= 0 {
					return false
				}
				s.space()
				if s.pos >= len(s.src) || s.src[s.pos] != ':' {
					return false
				}
				s.pos++
				s.space()
				m.key = key
			}
			val, ok := p.value()
			m.val = val
			v.members = append(v.members, m)
			return ok
		})
		return v, ok
	case c == '"':
		str, ok := s.str()
		return &jsonbValue{kind: 's', str: str}, ok && strings.IndexByte(str, 0) < 0
	case c == 't':
		return &jsonbValue{kind: 'x'}, s.literal("true")
	case c == 'f':
		return &jsonbValue{kind: 'x'}, s.literal("false")
	case c == 'n':
		return &jsonbValue{kind: 'x'}, s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		start := s.pos
		if !s.number() {
			return nil, false
		}
		// numeric holds exponents of a few thousand at most; content has none near that.
		n := s.src[start:s.pos]
		if e := strings.IndexAny(string(n), "eE"); e >= 0 && len(n)-e > 4 {
			return nil, false
		}
		return &jsonbValue{kind: 'x'}, true
	}
	return nil, false
}
