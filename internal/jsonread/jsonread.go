// Package jsonread reads the compact JSON that the server itself wrote (stored values, stored
// rich text) without reflection. It takes only the common shape: no whitespace, no null where
// the caller does not ask for one, strings whose escapes encoding/json would decode the same.
// Anything else makes the Reader bad, and the caller then decodes the bytes with encoding/json,
// which stays the reference: a Reader that finishes without going bad has read what
// encoding/json would have.
//
// NewBody makes the same Reader the fast path of the request-body decoder (jsonbody.Parse and
// the decoders that walk its tree): it also takes whitespace between tokens, and it goes bad on
// every string jsonbody.Parse would not read as it is written (an escaped U+0000, which Parse
// reports; 32 hex digits, which Parse may read as a dashless id, depending on the key). A fast
// reader built on it (blocks.ReadAppend, properties.ReadBodyValues, service.DecodeMutations) reads
// the common shape of one body straight into the values its reference decoder builds, and on
// anything it does not take in full (an unknown or repeated key, a value of the wrong type, a
// limit, a bad Reader) leaves the whole body to the reference decoder, which reports every
// problem: the fast path never answers an error of its own.
package jsonread

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/quire"
)

// Reader is a cursor over one JSON document.
type Reader struct {
	b    []byte
	i    int
	bad  bool
	body bool // a request body's rules (NewBody)
}

// New returns a Reader at the start of b.
func New(b []byte) Reader { return Reader{b: b} }

// NewBody returns a Reader at the start of a request body: whitespace between tokens is
// taken, and a string that jsonbody.Parse would read otherwise than as written makes it bad.
func NewBody(b []byte) Reader { return Reader{b: b, body: true} }

// space skips whitespace, on a request body's Reader only.
func (r *Reader) space() {
	if !r.body {
		return
	}
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// Once marks key bit of the object being read as met (seen holds the bits met so far) and
// reports whether it was new. A key met twice makes the Reader bad: encoding/json and
// jsonbody.Parse keep the later value, and a fast reader does not go back.
func (r *Reader) Once(seen *uint64, bit uint) bool {
	if *seen&(1<<bit) != 0 {
		r.bad = true
		return false
	}
	*seen |= 1 << bit
	return true
}

// Bad reports whether the Reader met anything it does not take.
func (r *Reader) Bad() bool { return r.bad }

// Fail marks the Reader bad: the caller met a key or a value it does not take.
func (r *Reader) Fail() { r.bad = true }

// End reports whether the whole document was read and nothing went bad.
func (r *Reader) End() bool {
	r.space()
	return !r.bad && r.i == len(r.b)
}

func (r *Reader) peek() byte {
	r.space()
	if r.bad || r.i >= len(r.b) {
		r.bad = true
		return 0
	}
	return r.b[r.i]
}

// Open consumes c ('{' or '[') and reports whether it was there.
func (r *Reader) Open(c byte) bool {
	if r.peek() != c {
		r.bad = true
		return false
	}
	r.i++
	return true
}

// More is the loop condition over the members of an object or an array opened with Open: it
// consumes the separator before member n (n counts from 0), or the closing byte after the last
// member and reports false.
func (r *Reader) More(closing byte, n int) bool {
	c := r.peek()
	switch {
	case r.bad:
		return false
	case c == closing:
		r.i++
		return false
	case n == 0:
		return true
	case c == ',':
		r.i++
		return true
	}
	r.bad = true
	return false
}

// Key reads an object member's key and its colon. The bytes are only valid until the next read;
// `switch string(r.Key())` compares them without a copy. A key with an escape is not taken.
func (r *Reader) Key() []byte {
	if r.peek() != '"' {
		r.bad = true
		return nil
	}
	start := r.i + 1
	ascii := true
	for j := start; j < len(r.b); j++ {
		c := r.b[j]
		if c == '\\' || c < 0x20 {
			break
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
		if c == '"' {
			colon := j + 1
			for r.body && colon < len(r.b) && (r.b[colon] == ' ' || r.b[colon] == '\t' || r.b[colon] == '\n' || r.b[colon] == '\r') {
				colon++
			}
			if colon >= len(r.b) || r.b[colon] != ':' || (!ascii && !utf8.Valid(r.b[start:j])) {
				break
			}
			r.i = colon + 1
			return r.b[start:j]
		}
	}
	r.bad = true
	return nil
}

// Null consumes a null and reports whether there was one.
func (r *Reader) Null() bool {
	r.space()
	if r.bad || len(r.b)-r.i < 4 || string(r.b[r.i:r.i+4]) != "null" {
		return false
	}
	r.i += 4
	return true
}

// Bool reads true or false.
func (r *Reader) Bool() bool {
	r.space()
	switch {
	case r.bad:
	case len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "true":
		r.i += 4
		return true
	case len(r.b)-r.i >= 5 && string(r.b[r.i:r.i+5]) == "false":
		r.i += 5
		return false
	}
	r.bad = true
	return false
}

// Text reads a string. One without escapes is copied as it is (valid UTF-8, no control
// characters); one with escapes is decoded by encoding/json.
func (r *Reader) Text() string {
	if r.peek() != '"' {
		r.bad = true
		return ""
	}
	start := r.i + 1
	ascii, escaped := true, false
	j := start
	for ; j < len(r.b); j++ {
		c := r.b[j]
		if c == '"' {
			break
		}
		if c == '\\' {
			escaped = true
			j++ // the escaped byte cannot end the string
			continue
		}
		if c < 0x20 {
			r.bad = true
			return ""
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if j >= len(r.b) {
		r.bad = true
		return ""
	}
	r.i = j + 1
	if escaped {
		var s string
		if json.Unmarshal(r.b[start-1:j+1], &s) != nil || (r.body && strings.IndexByte(s, 0) >= 0) {
			r.bad = true // jsonbody.Parse reports U+0000 at its path
		}
		return r.plain(s)
	}
	if !ascii && !utf8.Valid(r.b[start:j]) {
		r.bad = true // encoding/json would replace the invalid bytes
		return ""
	}
	return r.plain(string(r.b[start:j]))
}

// plain returns s, unless a request body's s is 32 hex digits: jsonbody.Parse reads those as
// a dashless id at an id's key, which a fast reader does not follow.
func (r *Reader) plain(s string) string {
	if r.body && len(s) == 32 {
		if _, ok := quire.DashlessID(s); ok {
			r.bad = true
		}
	}
	return s
}

// OneOf reads a string, returning the member of common equal to it without a copy: for the
// few values a field mostly holds (a type, a colour).
func (r *Reader) OneOf(common []string) string {
	if r.peek() == '"' {
		rest := r.b[r.i+1:]
		for _, s := range common {
			if len(rest) > len(s) && rest[len(s)] == '"' && string(rest[:len(s)]) == s {
				r.i += len(s) + 2
				return s
			}
		}
	}
	return r.Text()
}

// Float reads a number as encoding/json does into a float64.
func (r *Reader) Float() float64 {
	r.space()
	start := r.i
	j := start
	if j < len(r.b) && r.b[j] == '-' {
		j++
	}
	switch {
	case j < len(r.b) && r.b[j] == '0':
		j++
	case j < len(r.b) && r.b[j] >= '1' && r.b[j] <= '9':
		j = digits(r.b, j)
	default:
		r.bad = true
		return 0
	}
	if j < len(r.b) && r.b[j] == '.' {
		k := digits(r.b, j+1)
		if k == j+1 {
			r.bad = true
			return 0
		}
		j = k
	}
	if j < len(r.b) && (r.b[j] == 'e' || r.b[j] == 'E') {
		j++
		if j < len(r.b) && (r.b[j] == '+' || r.b[j] == '-') {
			j++
		}
		k := digits(r.b, j)
		if k == j {
			r.bad = true
			return 0
		}
		j = k
	}
	f, err := strconv.ParseFloat(string(r.b[start:j]), 64)
	if err != nil || r.bad {
		r.bad = true
		return 0
	}
	r.i = j
	return f
}

func digits(b []byte, j int) int {
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	return j
}

// Raw reads any one value and returns its bytes (a slice of the document).
func (r *Reader) Raw() []byte {
	r.space()
	start := r.i
	r.skip(0)
	if r.bad {
		return nil
	}
	return r.b[start:r.i]
}

// maxDepth bounds the nesting Raw follows, as encoding/json bounds its own.
const maxDepth = 10000

func (r *Reader) skip(depth int) {
	if depth > maxDepth {
		r.bad = true
		return
	}
	switch c := r.peek(); {
	case r.bad:
	case c == '{':
		r.i++
		for n := 0; r.More('}', n); n++ {
			_ = r.Text()
			if r.peek() != ':' {
				r.bad = true
				return
			}
			r.i++
			r.skip(depth + 1)
		}
	case c == '[':
		r.i++
		for n := 0; r.More(']', n); n++ {
			r.skip(depth + 1)
		}
	case c == '"':
		_ = r.Text()
	case c == 't' || c == 'f':
		r.Bool()
	case c == 'n':
		if !r.Null() {
			r.bad = true
		}
	default:
		r.Float()
	}
}
