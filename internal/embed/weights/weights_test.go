package weights

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"
)

func sample() []Tensor {
	return []Tensor{
		{Name: "matrix", Dtype: F16, Shape: []int{2, 3}, F32: []float32{1, -2.5, 0.099975586, 65504, -0, 6e-8}},
		{Name: "scalar", Dtype: F32, Shape: []int{}, F32: []float32{1e-12}},
		{Name: "ints", Dtype: I32, Shape: []int{3}, I32: []int32{-1, 0, 1 << 30}},
	}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	// Half precision keeps these values exactly except 6e-8, which becomes the nearest subnormal.
	want[0].F32[5] = ToFloat32(FromFloat32(6e-8))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(Encode(x)) = %+v, want %+v", got, want)
	}
	if want[0].F32[5] == 0 {
		t.Fatal("6e-8 underflowed to zero; it is representable as a subnormal half")
	}
}

func TestEncodeRejectsInconsistentTensors(t *testing.T) {
	for _, tensor := range []Tensor{
		{Name: "short", Dtype: F32, Shape: []int{4}, F32: []float32{1}},
		{Name: "ints", Dtype: I32, Shape: []int{2}, I32: []int32{1}},
		{Name: "dtype", Dtype: 9, Shape: []int{1}},
	} {
		if err := Encode(&bytes.Buffer{}, []Tensor{tensor}); err == nil {
			t.Errorf("Encode(%s) succeeded", tensor.Name)
		}
	}
}

func TestDecodeRejectsDamage(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"bad magic", append([]byte("QUIRETW0"), good[8:]...)},
		{"truncated", good[:len(good)-1]},
		{"trailing byte", append(bytes.Clone(good), 0)},
		{"huge count", append([]byte(Magic), 0xff, 0xff, 0xff, 0xff)},
	} {
		if _, err := Decode(c.data); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", c.name, err)
		}
	}
}

// TestHalf checks rounding against exact values: ties to even, subnormals, overflow, NaN.
func TestHalf(t *testing.T) {
	cases := []struct {
		in   float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{65504, 0x7bff},
		{65520, 0x7c00}, // rounds up to infinity
		{1e10, 0x7c00},
		{float32(math.Inf(-1)), 0xfc00},
		{1 + 1.0/2048, 0x3c00},           // tie between 1 and 1+2^-10: to even
		{1 + 3.0/2048, 0x3c02},           // tie: to even, upwards
		{6.103515625e-05, 0x0400},        // smallest normal
		{5.960464477539063e-08, 0x0001},  // smallest subnormal
		{2.9802322387695312e-08, 0x0000}, // half of it: tie to even, zero
		{3e-08, 0x0001},
		{1e-12, 0x0000},
	}
	for _, c := range cases {
		if got := FromFloat32(c.in); got != c.want {
			t.Errorf("FromFloat32(%g) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
	if h := FromFloat32(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("NaN became %#04x", h)
	}
	// Every finite half survives the round trip through float32.
	for h := 0; h < 1<<16; h++ {
		if h&0x7c00 == 0x7c00 {
			continue
		}
		if back := FromFloat32(ToFloat32(uint16(h))); back != uint16(h) {
			t.Fatalf("half %#04x → %g → %#04x", h, ToFloat32(uint16(h)), back)
		}
	}
}

func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(Magic + "\x01\x00\x00\x00\x01\x00x\x01\x01\xff\xff\xff\x7f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tensors, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		var again bytes.Buffer
		if err := Encode(&again, tensors); err != nil {
			t.Fatalf("a decoded file does not encode: %v", err)
		}
	})
}
