//go:build !amd64 || purego

package embed

var hasFMA = false // the plain Go loops run

func fmaPanel64(o, a, w *float32, k, stride int) { panic("embed: no FMA kernel") }

func dotInt8(a, b *int8, n int) int32 { panic("embed: no int8 kernel") }
