package httpapi

import (
	"crypto/sha256"
	"hash"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// patternReader yields n bytes of a fixed pattern, hashing them, without holding them.
type patternReader struct {
	n, off int64
	sum    hash.Hash
}

func newPatternReader(n int64) *patternReader { return &patternReader{n: n, sum: sha256.New()} }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	if int64(len(b)) > p.n-p.off {
		b = b[:p.n-p.off]
	}
	for i := range b {
		x := p.off + int64(i)
		b[i] = byte(x*31 + x>>9)
	}
	p.off += int64(len(b))
	p.sum.Write(b)
	return len(b), nil
}

// heapPeak samples the heap in use until stop is called and returns the highest value seen.
func heapPeak() (stop func() uint64) {
	var peak atomic.Uint64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

// fileTransfer measures one upload and one download of size bytes through the local store:
// the bytes allocated (an upper bound on how much the heap can grow) and the peak heap above
// the starting one.
type fileTransfer struct {
	upAlloc, downAlloc uint64
	upPeak, downPeak   int64
	up, down           time.Duration
}

func measureTransfer(t testing.TB, e *env, size int64) fileTransfer {
	t.Helper()
	var m fileTransfer
	up := e.announce(e.full, map[string]any{"filename": "big.bin", "content_type": "application/octet-stream", "size": size})
	src := newPatternReader(size)
	req, err := http.NewRequest(http.MethodPut, up["upload_url"].(string), src)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/octet-stream")

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	stop := heapPeak()
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	m.up = time.Since(start)
	m.upPeak = int64(stop()) - int64(before.HeapInuse)
	runtime.ReadMemStats(&after)
	m.upAlloc = after.TotalAlloc - before.TotalAlloc
	if res.StatusCode != 200 {
		t.Fatalf("PUT: %d", res.StatusCode)
	}

	u := e.downloadURL(e.full, up["id"].(string))
	runtime.GC()
	runtime.ReadMemStats(&before)
	stop = heapPeak()
	start = time.Now()
	res, err = http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	got := sha256.New()
	n, _ := io.Copy(got, res.Body)
	res.Body.Close()
	m.down = time.Since(start)
	m.downPeak = int64(stop()) - int64(before.HeapInuse)
	runtime.ReadMemStats(&after)
	m.downAlloc = after.TotalAlloc - before.TotalAlloc
	if res.StatusCode != 200 || n != size || string(got.Sum(nil)) != string(src.sum.Sum(nil)) {
		t.Fatalf("GET: %d, %d bytes, same content %v", res.StatusCode, n, string(got.Sum(nil)) == string(src.sum.Sum(nil)))
	}
	return m
}

// TestFiles_StreamingMemory uploads and downloads 10 MiB through the local store and checks
// that neither holds the file in memory: each allocates, in all, less than 2 MiB.
func TestFiles_StreamingMemory(t *testing.T) {
	const size = 10 << 20
	const limit = 2 << 20
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		m := measureTransfer(t, e, size)
		t.Logf("10 MiB: upload %v, %d KiB allocated, heap peak %+d KiB; download %v, %d KiB allocated, heap peak %+d KiB",
			m.up, m.upAlloc>>10, m.upPeak>>10, m.down, m.downAlloc>>10, m.downPeak>>10)
		if m.upAlloc >= limit || m.upPeak >= limit {
			t.Errorf("upload of 10 MiB: %d bytes allocated, heap peak +%d; want both under 2 MiB", m.upAlloc, m.upPeak)
		}
		if m.downAlloc >= limit || m.downPeak >= limit {
			t.Errorf("download of 10 MiB: %d bytes allocated, heap peak +%d; want both under 2 MiB", m.downAlloc, m.downPeak)
		}
	})
}

// BenchmarkFiles_Transfer10MiB reports the time and allocations of a 10 MiB upload and
// download through the local store on SQLite.
func BenchmarkFiles_Transfer10MiB(b *testing.B) {
	e := newEnv(b, testdb.SQLite(b))
	var up, down time.Duration
	var upAlloc, downAlloc uint64
	for b.Loop() {
		m := measureTransfer(b, e, 10<<20)
		up, down = up+m.up, down+m.down
		upAlloc, downAlloc = upAlloc+m.upAlloc, downAlloc+m.downAlloc
	}
	n := float64(b.N)
	b.ReportMetric(10/(up.Seconds()/n), "upload-MiB/s")
	b.ReportMetric(10/(down.Seconds()/n), "download-MiB/s")
	b.ReportMetric(float64(upAlloc)/n/1024, "upload-KiB-alloc")
	b.ReportMetric(float64(downAlloc)/n/1024, "download-KiB-alloc")
}
