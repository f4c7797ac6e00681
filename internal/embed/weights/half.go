package weights

import "math"

// FromFloat32 rounds f to the nearest IEEE 754 half-precision value (ties to even), with overflow to
// infinity, gradual underflow to subnormals, and NaN kept a NaN.
func FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127 > 15: // too large: infinity
		return sign | 0x7c00
	case exp-127 >= -14: // normal half
		h := uint32(exp-127+15)<<10 | mant>>13
		rest := mant & 0x1fff
		if rest > 0x1000 || rest == 0x1000 && h&1 == 1 {
			h++ // may carry into the exponent, and up to infinity: both are the right answer
		}
		return sign | uint16(h)
	case exp-127 >= -25: // subnormal half (or rounds up to the smallest one)
		m := mant | 0x800000 // the implicit bit
		shift := uint(-(exp - 127) - 14 + 13)
		h := m >> shift
		rest := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || rest == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	default: // rounds to zero
		return sign
	}
}

// halfTable maps every half-precision bit pattern to its float32 value; 256 KiB, built once.
var halfTable = func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = halfToFloat32(uint16(i))
	}
	return &t
}()

// ToFloat32 widens an IEEE 754 half-precision value exactly.
func ToFloat32(h uint16) float32 { return halfTable[h] }

func halfToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	default: // subnormal: mant × 2^-24
		v := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
}
