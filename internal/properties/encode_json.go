package properties

import (
	"math"
	"strconv"

	"github.com/quire-dev/quire/internal/blocks"
)

// The canonical JSON is written by hand, as internal/blocks writes blocks: the key order is
// fixed (equal content has equal bytes, which keeps ETags and idempotency hashes stable) and
// it costs no reflection.

// objWriter writes one JSON object's members, as blocks does.
type objWriter = blocks.ObjWriter

func appendNullable(dst []byte, v string) []byte {
	if v == "" {
		return append(dst, "null"...)
	}
	return blocks.AppendString(dst, v)
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
