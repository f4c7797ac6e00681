package service_test

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/service"
)

// timed runs op b.N times and reports the median and 90th percentile in milliseconds, the
// figures the issues set targets on, and the median CPU time of the request's own thread
// (req-cpu-ms): on a shared machine wall time follows the load, while the CPU that op spends
// on its goroutine, locked to its thread, moves much less, and it leaves out work the store
// does beside the request (background checkpoints and merges, which cpu-ms counts).
func timed(b *testing.B, op func()) {
	b.Helper()
	d := make([]time.Duration, 0, b.N)
	c := make([]time.Duration, 0, b.N)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	for range b.N {
		start, cpu := time.Now(), threadCPU()
		op()
		d = append(d, time.Since(start))
		c = append(c, threadCPU()-cpu)
	}
	b.StopTimer()
	slices.Sort(d)
	slices.Sort(c)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*9/10].Microseconds())/1000, "p90-ms")
	b.ReportMetric(float64(c[len(c)/2].Microseconds())/1000, "req-cpu-ms")
}

// threadCPU is the CPU time of the calling thread (user and system).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAppend100 appends 100 paragraph blocks in one request (target: p50 < 5 ms on SQLite).
func BenchmarkAppend100(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			st, _, pgURL := openBenchStore(b, e.name)
			svc, p := caller(b, st)
			batch := paragraphs(100, "The quick brown fox jumps over the lazy dog.")
			// A store's first writes cost up to twice as much as later ones (SQLite's page cache
			// and the Go heap still growing, statements being prepared): 30 appends to another
			// page first, so that the figure is a running server's, not a cold start's.
			warm := newPage(b, svc, p)
			for range 30 {
				if _, _, err := svc.AppendChildren(ctx, p, warm.ID, batch, service.Placement{}); err != nil {
					b.Fatal(err)
				}
			}
			page := newPage(b, svc, p)
			timedServer(b, pgURL, func() {
				if _, _, err := svc.AppendChildren(ctx, p, page.ID, batch, service.Placement{}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkChildrenPage reads one page of 100 children from the middle of pages of 1,000 and
// 10,000 blocks (target: p50 < 2 ms, flat as the page grows: a keyset walk, not an offset).
func BenchmarkChildrenPage(b *testing.B) {
	for _, e := range engines {
		for _, size := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("%s/blocks=%d", e.name, size), func(b *testing.B) {
				svc, p := caller(b, e.open(b))
				page := newPage(b, svc, p)
				fill(b, svc, p, page.ID, size)
				// A cursor half way down the page.
				cursor := ""
				for range size / 200 {
					pg, _, err := svc.Children(ctx, p, page.ID, cursor, 100)
					if err != nil {
						b.Fatal(err)
					}
					cursor = pg.NextCursor
				}
				timedCPU(b, func() {
					pg, _, err := svc.Children(ctx, p, page.ID, cursor, 100)
					if err != nil || len(pg.Items) != 100 {
						b.Fatalf("children: %d, %v", len(pg.Items), err)
					}
				})
			})
		}
	}
}

// BenchmarkMarkdownExport renders a page of 10,000 blocks (target: < 150 ms, memory flat).
func BenchmarkMarkdownExport(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name+"/blocks=10000", func(b *testing.B) {
			svc, p := caller(b, e.open(b))
			page := newPage(b, svc, p)
			fill(b, svc, p, page.ID, 10000)
			b.ReportAllocs()
			timedCPU(b, func() {
				if err := svc.ExportMarkdown(ctx, p, page.ID, io.Discard, nil); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
