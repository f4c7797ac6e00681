package embed

import (
	"math"

	"github.com/quire-dev/quire/internal/embed/weights"
)

// halfGroup is the columns one call of the sparse kernel computes (eight panels), and so the
// width of a feature's row in the half-precision copy of the FFN's second matrix.
const halfGroup = 8 * lanes

// packHalf returns the weights of w in half precision for gemmSparse's AVX-512 kernel
// (fma3x128h), or nil unless every weight is a half-precision number (the model's matrices
// are: the file stores them as halves, so the copy holds the very same values and the sums
// are the same floats). The layout is feature-major within each group of 128 columns: group
// g's row of feature f is the 128 halves at (g·k + f)·128, so the kernel reads a kept feature's
// weights as 256 contiguous bytes, where the float32 panels give it eight lines of 64 bytes
// each, 2 KiB apart. Half the bytes of a product that reads its weights from L2 (the kept
// features are scattered).
func packHalf(w packed) []uint16 {
	if w.m%halfGroup != 0 || w.k == 0 {
		return nil
	}
	k := w.k
	h := make([]uint16, k*w.m)
	for g := 0; g < w.m/halfGroup; g++ {
		for f := 0; f < k; f++ {
			row := h[(g*k+f)*halfGroup:][:halfGroup]
			for p := range 8 {
				panel := w.p[(g*8+p)*lanes*k:][:lanes*k]
				for c, v := range panel[f*lanes:][:lanes] {
					b := weights.FromFloat32(v)
					if math.Float32bits(weights.ToFloat32(b)) != math.Float32bits(v) {
						return nil
					}
					row[p*lanes+c] = b
				}
			}
		}
	}
	return h
}
