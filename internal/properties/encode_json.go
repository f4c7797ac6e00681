package properties

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// The canonical JSON is written by hand, as internal/blocks writes blocks: the key order is
// fixed (equal content has equal bytes, which keeps ETags and idempotency hashes stable) and
// it costs no reflection.

type objWriter struct {
	dst  []byte
	more bool
}

func (w *objWriter) key(k string) {
	if w.more {
		w.dst = append(w.dst, ',')
	}
	w.more = true
	w.dst = appendString(w.dst, k)
	w.dst = append(w.dst, ':')
}

func (w *objWriter) str(k, v string) {
	w.key(k)
	w.dst = appendString(w.dst, v)
}

// nullable writes v, or null when v is "".
func (w *objWriter) nullable(k, v string) {
	w.key(k)
	w.dst = appendNullable(w.dst, v)
}

func (w *objWriter) raw(k, v string) {
	w.key(k)
	w.dst = append(w.dst, v...)
}

func appendNullable(dst []byte, v string) []byte {
	if v == "" {
		return append(dst, "null"...)
	}
	return appendString(dst, v)
}

// appendNumber writes f as encoding/json does: plain decimals, exponents only for very
// small or very large magnitudes.
func appendNumber(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 reads better as 1e-7.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json does except that <, >
// and & stay literal (the output is never embedded in HTML). Invalid UTF-8 becomes U+FFFD.
// It is internal/blocks' writer, so that rich text and the text around it escape alike.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
