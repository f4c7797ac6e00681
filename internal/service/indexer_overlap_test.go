package service_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// claimWatcher is the built-in embedder. Its first call waits (up to ten seconds) until the
// store shows more nodes claimed than one batch holds, and remembers the most it saw: with the
// batches overlapping, the next batch is claimed while the first is embedded.
type claimWatcher struct {
	embed.Embedder
	st    *store.Store
	want  int64
	once  sync.Once
	mu    sync.Mutex
	most  int64
	calls int
}

func (c *claimWatcher) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.once.Do(func() {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			_, waiting, err := c.st.EmbedQueueDepth(ctx, quire.NowMillis(), 1000)
			if err != nil {
				return
			}
			c.mu.Lock()
			c.most = max(c.most, waiting)
			c.mu.Unlock()
			if waiting >= c.want {
				return
			}
		}
	})
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return c.Embedder.Embed(ctx, texts)
}

// TestIndexerClaimsTheNextBatchWhileEmbedding: one worker claims its next batch (16 nodes)
// while it embeds the one before, so that the claim and the reads do not leave the cores idle
// between batches; every queued page is still embedded, once, and the queue ends empty.
func TestIndexerClaimsTheNextBatchWhileEmbedding(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			writer, p := caller(t, st)
			const pages = 40
			for i := range pages {
				createPage(t, writer, p, map[string]any{"parent": map[string]any{"workspace": true},
					"properties": map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": fmt.Sprintf("Page %d about cats", i)}}}}})
			}
			queued, err := st.EmbedQueueLength(ctx)
			if err != nil || queued < pages {
				t.Fatalf("%d nodes queued, %v; want at least %d", queued, err, pages)
			}
			rec := &claimWatcher{Embedder: embed.Builtin(), st: st, want: 32}
			svc := service.New(st, service.Options{BaseURL: "http://quire.test", Embedder: rec})
			run, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				service.NewIndexer(svc, slog.New(slog.NewTextHandler(io.Discard, nil))).Workers(1).Run(run)
			}()
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
				n, err := st.EmbedQueueLength(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 && svc.IndexStats().Nodes >= queued {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d nodes still queued after a minute; %+v", n, svc.IndexStats())
				}
			}
			stop()
			<-done
			if rec.most < 32 {
				t.Errorf("at most %d nodes claimed at once while the first batch embedded, want 32 (the next batch claimed meanwhile)", rec.most)
			}
			if s := svc.IndexStats(); s.Nodes != queued || s.Failures != 0 || s.Chunks < pages {
				t.Errorf("index stats %+v; want %d nodes saved once each, no failure, at least %d chunks", s, queued, pages)
			}
			if n, err := st.EmbeddingCount(ctx); err != nil || n < pages {
				t.Errorf("%d vectors stored, %v; want at least %d", n, err, pages)
			}
		})
	}
}
