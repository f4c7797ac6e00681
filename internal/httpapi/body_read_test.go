package httpapi

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// TestReadAll: readAll reads what io.ReadAll reads, whatever buffer it starts from (the
// Content-Length's, one too small, one too large, io.ReadAll's) and however the reader cuts
// its reads, and passes on a read's error.
func TestReadAll(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 13367, 29 << 10, maxBody} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.IntN(256))
		}
		for _, size := range []int{bodySize(int64(n)), bodySize(-1), bodySize(int64(n / 2)), bodySize(int64(2 * n)), 1} {
			for name, rd := range map[string]io.Reader{"whole": bytes.NewReader(data), "by byte": iotest.OneByteReader(bytes.NewReader(data)),
				"half": iotest.HalfReader(bytes.NewReader(data)), "data with EOF": iotest.DataErrReader(bytes.NewReader(data))} {
				if name == "by byte" && n > 4096 {
					continue
				}
				got, err := readAll(rd, size)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("readAll(%d bytes %s, %d) = %d bytes, %v", n, name, size, len(got), err)
				}
			}
		}
	}
	boom := errors.New("boom")
	if _, err := readAll(io.MultiReader(bytes.NewReader([]byte("abc")), iotest.ErrReader(boom)), bodySize(10)); !errors.Is(err, boom) {
		t.Fatalf("readAll of a failing reader: %v", err)
	}
	if got := bodySize(5 << 20); got != maxBody+2 {
		t.Fatalf("bodySize of 5 MiB = %d, want the limit's %d", got, maxBody+2)
	}
}
