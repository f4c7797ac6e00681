package service_test

import (
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/service"
)

// BenchmarkIndexAppendedPage is the indexer's share of issue 15's append row: each operation
// appends 100 paragraphs to a page that already holds more than the indexer reads of it (its
// first 200 entries) and then runs the indexer's pass over the page it queued, which embeds
// nothing. ix-cpu-ms is the process's CPU during that pass alone (docs/performance.md "Append,
// ninth pass"); the page grows by 100 blocks an operation from size.
func BenchmarkIndexAppendedPage(b *testing.B) {
	for _, e := range engines {
		for _, size := range []int{400, 2000} {
			b.Run(fmt.Sprintf("%s/blocks=%d", e.name, size), func(b *testing.B) {
				st := e.open(b)
				_, p := caller(b, st) // the workspace, its user and token; the service below embeds
				svc := service.New(st, service.Options{BaseURL: "http://quire.test", Embedder: embed.Builtin()})
				ix := service.NewIndexer(svc, slog.New(slog.NewTextHandler(io.Discard, nil)))
				page := newPage(b, svc, p)
				for i := range size / 100 {
					if _, _, err := svc.AppendChildren(ctx, p, page.ID, paragraphs(100, fmt.Sprintf("Paragraph %d of the page, a sentence of some length. And a second one.", i)), service.Placement{}); err != nil {
						b.Fatal(err)
					}
				}
				for {
					n, err := ix.RunOnce(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if n == 0 {
						break
					}
				}
				batch := paragraphs(100, "The quick brown fox jumps over the lazy dog.")
				var spent float64
				b.ResetTimer()
				for range b.N {
					if _, _, err := svc.AppendChildren(ctx, p, page.ID, batch, service.Placement{}); err != nil {
						b.Fatal(err)
					}
					before := cpuTime()
					if n, err := ix.RunOnce(ctx); err != nil || n != 1 {
						b.Fatalf("RunOnce = %d, %v; want the appended page", n, err)
					}
					spent += float64((cpuTime() - before).Microseconds()) / 1000
				}
				b.ReportMetric(spent/float64(b.N), "ix-cpu-ms")
				if s := svc.IndexStats(); s.Chunks == 0 {
					b.Fatalf("nothing embedded: %+v", s)
				}
			})
		}
	}
}
