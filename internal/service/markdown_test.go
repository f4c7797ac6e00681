package service_test

import (
	"runtime"
	"strings"
	"testing"
)

// heapSampler is an export's writer that records the live heap (after a collection) every n
// writes, the first included.
type heapSampler struct {
	writes  int
	maxLive uint64
	n       int
}

func (h *heapSampler) Write(p []byte) (int, error) {
	if h.writes%h.n == 0 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		h.maxLive = max(h.maxLive, m.HeapAlloc)
	}
	h.writes++
	return len(p), nil
}

// TestExportMemoryIsFlat exports pages of 2,000 and 20,000 blocks and checks that the live heap
// during the export does not grow with the page: the tree is streamed, never held.
func TestExportMemoryIsFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("fills pages of 20,000 blocks")
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			svc, p := caller(t, e.open(t))
			live := map[int]uint64{}
			for _, size := range []int{2000, 20000} {
				page := newPage(t, svc, p)
				fill(t, svc, p, page.ID, size)
				runtime.GC()
				var base runtime.MemStats
				runtime.ReadMemStats(&base)
				h := &heapSampler{n: 4} // the renderer writes 8 KiB at a time
				if err := svc.ExportMarkdown(ctx, p, page.ID, h, nil); err != nil || h.maxLive == 0 {
					t.Fatalf("export: %v (samples taken: %v)", err, h.maxLive != 0)
				}
				h = &heapSampler{n: 4}
				if err := svc.ExportMarkdown(ctx, p, page.ID, h, nil); err != nil {
					t.Fatal(err)
				}
				live[size] = h.maxLive - min(h.maxLive, base.HeapAlloc)
				t.Logf("%d blocks: %d writes, live heap above the start at most %d KiB", size, h.writes, live[size]>>10)
			}
			if growth := int64(live[20000]) - int64(live[2000]); growth > 2<<20 {
				t.Fatalf("live heap grew by %d KiB from 2,000 to 20,000 blocks; want < 2 MiB", growth>>10)
			}
		})
	}
}

// TestExportMarkdown checks the streamed export against the blocks written.
func TestExportMarkdown(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			svc, p := caller(t, e.open(t))
			page := newPage(t, svc, p)
			fill(t, svc, p, page.ID, 1050)
			var sb strings.Builder
			if err := svc.ExportMarkdown(ctx, p, page.ID, &sb, nil); err != nil {
				t.Fatal(err)
			}
			md := sb.String()
			// 11 appends: each a list item with a nested paragraph, then 99 paragraphs (the last 49).
			if got := strings.Count(md, "- item\n"); got != 11 {
				t.Errorf("list items = %d, want 11", got)
			}
			if got := strings.Count(md, "\n  nested"); got != 11 {
				t.Errorf("nested paragraphs = %d, want 11", got)
			}
			if got := strings.Count(md, "The quick brown fox"); got != 1050-11 {
				t.Errorf("paragraphs = %d, want %d", got, 1050-11)
			}
		})
	}
}
