package properties

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// strByteWise is cursor.str as it was, one byte at a time: the reference its word-at-a-time
// skipping must agree with.
func strByteWise(b []byte) (q []byte, plain, ok bool, next int) {
	if len(b) == 0 || b[0] != '"' {
		return nil, false, false, 0
	}
	plain, ascii := true, true
	for j := 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			q = b[:j+1]
			if plain && !ascii {
				plain = utf8.Valid(q) && !hasLineSeparator(q)
			}
			return q, plain, true, j + 1
		case c == '\\':
			plain = false
			j++
		case c < 0x20:
			return nil, false, false, 0
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false, false, 0
}

// TestCursorStr puts each byte str must notice at every offset of strings longer than a word,
// and each of them just outside the bytes a word covers, and compares str with strByteWise.
func TestCursorStr(t *testing.T) {
	specials := []string{`"`, `\"`, `\\`, "\x01", "\x1f", " ", "\x7f", "é", "\u2028", "\xff", "\xe2\x80", `\`}
	var cases []string
	for n := 0; n <= 20; n++ {
		for _, sp := range specials {
			for at := 0; at <= n; at++ {
				body := strings.Repeat("a", at) + sp + strings.Repeat("b", n-at)
				cases = append(cases, `"`+body+`"`, `"`+body+`",`, `"`+body, `"`+body+`"}`+strings.Repeat("z", 9))
			}
		}
	}
	for _, in := range cases {
		c := cursor{b: []byte(in)}
		q, plain, ok := c.str()
		wq, wplain, wok, wnext := strByteWise([]byte(in))
		if string(q) != string(wq) || plain != wplain || ok != wok || (ok && c.i != wnext) {
			t.Fatalf("str(%q) = %q, %v, %v, next %d; want %q, %v, %v, next %d", in, q, plain, ok, c.i, wq, wplain, wok, wnext)
		}
	}
}

// TestQuietWord checks the word test against a byte at a time on every byte value at every
// position of a word of plain letters.
func TestQuietWord(t *testing.T) {
	for pos := 0; pos < 8; pos++ {
		for v := 0; v < 256; v++ {
			w := []byte("abcdefgh")
			w[pos] = byte(v)
			want := v >= 0x20 && v < 0x80 && v != '"' && v != '\\'
			if got := quietWord(leWord(w)); got != want {
				t.Fatalf("quietWord with %#x at %d = %v, want %v", v, pos, got, want)
			}
		}
	}
}

func leWord(b []byte) uint64 {
	var w uint64
	for i := 7; i >= 0; i-- {
		w = w<<8 | uint64(b[i])
	}
	return w
}
