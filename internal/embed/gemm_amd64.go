//go:build amd64 && !purego

package embed

import "golang.org/x/sys/cpu"

// hasFMA selects the AVX2/FMA kernels of gemm_amd64.s; without them the plain Go loops run.
var hasFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func fmaPanel64(o, a, w *float32, k, stride int)

//go:noescape
func dotInt8(a, b *int8, n int) int32
