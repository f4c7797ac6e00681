package search

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// BlockText is a block's searchable text as SQLite's trigger computes it: the string
// values of every member named plain_text or expression, at any depth, in document order
// (json_tree's order), joined by spaces. ok is false when content is not JSON this scanner reads
// exactly as SQLite does (a lone surrogate escape, a raw control character, JSON5); the trigger
// then computes the entry itself.
func BlockText(content []byte) (text string, ok bool) {
	s := textScanner{src: content}
	s.space()
	if !s.value(false) {
		return "", false
	}
	s.space()
	if s.pos != len(s.src) {
		return "", false
	}
	return strings.Join(s.found, " "), true
}

// maxTextDepth is how deep the scanner follows nested arrays and objects (SQLite's JSON stops at
// 1,000; block content is a few levels deep).
const maxTextDepth = 64

type textScanner struct {
	src   []byte
	pos   int
	depth int
	found []string
}

func (s *textScanner) space() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value reads one JSON value; keep says it is the value of a plain_text or expression member.
func (s *textScanner) value(keep bool) bool {
	if s.pos >= len(s.src) {
		return false
	}
	switch c := s.src[s.pos]; {
	case c == '{' || c == '[':
		if s.depth == maxTextDepth {
			return false
		}
		s.depth++
		defer func() { s.depth-- }()
		if c == '{' {
			return s.object()
		}
		return s.array()
	case c == '"':
		str, ok := s.str()
		if ok && keep {
			s.found = append(s.found, str)
		}
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return false
}

func (s *textScanner) object() bool {
	return s.members('}', func() bool {
		if s.pos >= len(s.src) || s.src[s.pos] != '"' {
			return false
		}
		key, ok := s.str()
		if !ok {
			return false
		}
		s.space()
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			return false
		}
		s.pos++
		s.space()
		return s.value(key == "plain_text" || key == "expression")
	})
}

func (s *textScanner) array() bool {
	return s.members(']', func() bool { return s.value(false) })
}

// members reads the members of an object or array from its opening byte to end, each by member
// (called at the member's first byte), separated by commas.
func (s *textScanner) members(end byte, member func() bool) bool {
	s.pos++ // { or [
	s.space()
	if s.pos < len(s.src) && s.src[s.pos] == end {
		s.pos++
		return true
	}
	for {
		s.space()
		if !member() {
			return false
		}
		s.space()
		if s.pos >= len(s.src) {
			return false
		}
		switch s.src[s.pos] {
		case ',':
			s.pos++
		case end:
			s.pos++
			return true
		default:
			return false
		}
	}
}

func (s *textScanner) literal(word string) bool {
	if !strings.HasPrefix(string(s.src[s.pos:min(len(s.src), s.pos+len(word))]), word) {
		return false
	}
	s.pos += len(word)
	return true
}

// number reads a JSON number strictly (RFC 8259), so that nothing SQLite reads as JSON5 passes.
func (s *textScanner) number() bool {
	digits := func() int {
		n := 0
		for s.pos < len(s.src) && s.src[s.pos] >= '0' && s.src[s.pos] <= '9' {
			s.pos++
			n++
		}
		return n
	}
	if s.src[s.pos] == '-' {
		s.pos++
	}
	start := s.pos
	if n := digits(); n == 0 || n > 1 && s.src[start] == '0' {
		return false
	}
	if s.pos < len(s.src) && s.src[s.pos] == '.' {
		s.pos++
		if digits() == 0 {
			return false
		}
	}
	if s.pos < len(s.src) && (s.src[s.pos] == 'e' || s.src[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.src) && (s.src[s.pos] == '+' || s.src[s.pos] == '-') {
			s.pos++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// str reads a string and returns it decoded. Raw control characters and escapes of lone
// surrogates are refused: SQLite's reading of those is its own.
func (s *textScanner) str() (string, bool) {
	s.pos++ // "
	start := s.pos
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '"':
			out := string(s.src[start:s.pos])
			s.pos++
			return out, true
		case c == '\\':
			return s.escapedStr(start)
		case c < 0x20:
			return "", false
		}
		s.pos++
	}
	return "", false
}

// escapedStr finishes reading a string that holds an escape, from its first byte at start.
func (s *textScanner) escapedStr(start int) (string, bool) {
	out := append([]byte(nil), s.src[start:s.pos]...)
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '"':
			s.pos++
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			s.pos++
			continue
		}
		if s.pos+1 >= len(s.src) {
			return "", false
		}
		e := s.src[s.pos+1]
		s.pos += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xdc00 || s.pos+1 >= len(s.src) || s.src[s.pos] != '\\' || s.src[s.pos+1] != 'u' {
					return "", false
				}
				s.pos += 2
				lo, ok := s.hex4()
				if !ok || lo < 0xdc00 || lo > 0xdfff {
					return "", false
				}
				r = utf16.DecodeRune(r, lo)
			}
			if r == 0 {
				return "", false
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return "", false
}

func (s *textScanner) hex4() (rune, bool) {
	if s.pos+4 > len(s.src) {
		return 0, false
	}
	var r rune
	for _, c := range s.src[s.pos : s.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	s.pos += 4
	return r, true
}
