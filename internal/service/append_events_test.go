package service_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// TestConcurrentAppends_EventsInOrder has clients append to two pages of one workspace at once,
// as the speed table's c=16 row does: the feed's positions run without a gap or a repeat, every
// append has its event, and the events of a page list its blocks in the page's order (an append
// that met another on the page comes after it in both). On PostgreSQL positions are given after
// commit, by the feed's reader (store/events_stamp.go), in the order of keys each write draws
// while it holds the page's row: this checks that those keys order the positions as the blocks.
func TestConcurrentAppends_EventsInOrder(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			pages := []*quire.Node{newPage(t, svc, p), newPage(t, svc, p)}
			const clients, rounds, per = 8, 3, 5
			var wg sync.WaitGroup
			errs := make(chan error, clients*rounds)
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range rounds {
						batch := make([]any, per)
						for i := range per {
							batch[i] = paragraphs(1, fmt.Sprintf("c%d-r%d-%d", c, r, i))[0]
						}
						if _, _, err := svc.AppendChildren(ctx, p, pages[c%2].ID, batch, service.Placement{}); err != nil {
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
			evs, err := st.Events(ctx, p.WorkspaceID(), 0, 1000, store.EventFilter{})
			if err != nil {
				t.Fatal(err)
			}
			appended := map[string][]string{} // page → block ids in the order of its events
			events := map[string]int{}
			for i, ev := range evs {
				if i > 0 && ev.Seq != evs[i-1].Seq+1 {
					t.Fatalf("event %d at position %d after %d: want consecutive positions", i, ev.Seq, evs[i-1].Seq)
				}
				if ev.Type == quire.EventPageContentUpdated {
					appended[ev.EntityID] = append(appended[ev.EntityID], ev.Data.BlockIDs...)
					events[ev.EntityID]++
				}
			}
			for _, page := range pages {
				if n := events[page.ID]; n != clients/2*rounds {
					t.Errorf("page %s: %d content events, want %d", page.ID, n, clients/2*rounds)
				}
				ids := childIDs(t, svc, p, page.ID) // 60 blocks: one listing
				if !slices.Equal(appended[page.ID], ids) {
					t.Errorf("page %s: blocks by its events\n%v\nwant the page's order\n%v", page.ID, appended[page.ID], ids)
				}
			}
		})
	}
}
