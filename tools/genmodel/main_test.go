package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/embed/weights"
)

func TestVerifyRefusesAnotherTarball(t *testing.T) {
	if err := verify([]byte("not the package")); err == nil || !strings.Contains(err.Error(), "integrity") {
		t.Fatalf("verify = %v, want an integrity error", err)
	}
}

// f32 lays out float32 values as a tfjs shard does (little-endian).
func f32(vals ...float32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func tarball(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestConvert(t *testing.T) {
	big := make([]float32, halfMin) // a [256 × 256] matrix: stored in half precision
	for i := range big {
		big[i] = float32(i%100) / 64
	}
	shard := append(f32(big...), f32(0.5, -1e-12)...)
	shard = append(shard, 7, 0, 0, 0) // int32 7
	manifest := `{"weightsManifest":[{"paths":["group1-shard1of2","group1-shard2of2"],"weights":[
		{"name":"module/Encoder_en/big","shape":[256,256],"dtype":"float32"},
		{"name":"small","shape":[2],"dtype":"float32"},
		{"name":"n","shape":[],"dtype":"int32"}]}]}`
	split := len(shard) / 2
	files, err := untar(tarball(t, map[string][]byte{
		"package/dist/model.json":       []byte(manifest),
		"package/dist/group1-shard1of2": shard[:split],
		"package/dist/group1-shard2of2": shard[split:],
	}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := convert(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Dtype != weights.F16 || got[1].Dtype != weights.F32 || got[2].Dtype != weights.I32 {
		t.Fatalf("tensors %d, dtypes %v %v %v; want F16, F32 (small stays exact), I32", len(got), got[0].Dtype, got[1].Dtype, got[2].Dtype)
	}
	if got[0].F32[99] != big[99] || got[1].F32[1] != -1e-12 || got[2].I32[0] != 7 {
		t.Fatalf("values %v %v %v", got[0].F32[99], got[1].F32[1], got[2].I32[0])
	}

	// A manifest that does not account for every byte of the shards is refused.
	files["package/dist/group1-shard2of2"] = append(files["package/dist/group1-shard2of2"], 0, 0, 0, 0)
	if _, err := convert(files); err == nil || !strings.Contains(err.Error(), "the shards hold") {
		t.Fatalf("convert with a longer shard = %v", err)
	}
	delete(files, "package/dist/group1-shard2of2")
	if _, err := convert(files); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("convert without a shard = %v", err)
	}
}
