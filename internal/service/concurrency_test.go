package service_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// TestConcurrentAppends has many clients append to one page at once: every block lands exactly
// once, and each request's blocks stay together and in order.
func TestConcurrentAppends(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			svc, p := caller(t, e.open(t))
			page := newPage(t, svc, p)
			const clients, rounds, per = 8, 3, 10
			var wg sync.WaitGroup
			errs := make(chan error, clients*rounds)
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range rounds {
						batch := make([]any, per)
						for i := range per {
							batch[i] = paragraphs(1, fmt.Sprintf("c%d-r%d-%02d", c, r, i))[0]
						}
						if _, _, err := svc.AppendChildren(ctx, p, page.ID, batch, service.Placement{}); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			texts := childTexts(t, svc, p, page.ID)
			if len(texts) != clients*rounds*per {
				t.Fatalf("%d blocks, want %d", len(texts), clients*rounds*per)
			}
			seen := map[string]bool{}
			for i, s := range texts {
				if seen[s] {
					t.Fatalf("block %q twice", s)
				}
				seen[s] = true
				// Within a request, blocks follow each other: -00 opens a run of ten.
				if i%per != 0 {
					prev := texts[i-1]
					if prev[:strings.LastIndex(prev, "-")] != s[:strings.LastIndex(s, "-")] {
						t.Fatalf("requests interleave at %d: %q then %q", i, prev, s)
					}
				} else if !strings.HasSuffix(s, "-00") {
					t.Fatalf("a run starts with %q", s)
				}
			}
		})
	}
}

// childTexts reads every child of page in order, and fails unless their positions are unique
// and ascending: concurrent writers to one page must never share a position.
func childTexts(t *testing.T, svc *service.Service, p *quire.Principal, page string) []string {
	t.Helper()
	var texts []string
	cursor, last := "", ""
	for {
		pg, _, err := svc.Children(ctx, p, page, cursor, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range pg.Items {
			bb, err := blocks.UnmarshalContent(b.Type, b.Content)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, bb.Content.RichText.PlainText())
			if b.Position <= last {
				t.Fatalf("block %d (%q) at position %q, not after %q", len(texts)-1, texts[len(texts)-1], b.Position, last)
			}
			last = b.Position
		}
		if cursor = pg.NextCursor; cursor == "" {
			return texts
		}
	}
}
