package httpapi

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// How a racing client places its appends.
const (
	appendAtEnd   = iota // no placement: at the end
	appendChained        // the first at the end, then each after the client's own last block
	appendAtStart        // position start
)

// TestRace_Appends: many clients append to one page at once, at the end, after their own last
// block, or at the start. Every acknowledged block is there once and nothing else; each
// request's blocks stay together and in order; a client's appends at the end keep its order,
// its chain after its own blocks stays unbroken, its appends at the start come in reverse; the
// listing is the same read in one page or walked with a cursor; the page's version counts each
// append once.
func TestRace_Appends(t *testing.T) {
	rounds := raceRounds(1, 30)
	const requests, perRequest = 4, 2
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		rc := e.racer()
		for round := range rounds {
			page := e.mkPage(t, e.full, wsParent, fmt.Sprint("Appends ", round))
			before := version(t, e.getPage(t, page).header.Get("ETag"))
			acked := make([][][]string, raceClients) // client → request → block ids
			var f faults
			race(raceClients, func(c int) {
				var last string
				for k := range requests {
					kids := make([]any, perRequest)
					for j := range kids {
						kids[j] = para(fmt.Sprintf("c%d-%d-%d", c, k, j))
					}
					body := map[string]any{"children": kids}
					switch {
					case c%3 == appendAtStart:
						body["position"] = map[string]any{"type": "start"}
					case c%3 == appendChained && k > 0 && c%2 == 0:
						body["after"] = last
					case c%3 == appendChained && k > 0:
						body["position"] = map[string]any{"type": "after_block", "after_block": map[string]any{"id": last}}
					}
					r, err := rc.send(http.MethodPatch, "/v2/blocks/"+page+"/children", body)
					if !f.answered("append", r, err, 200) {
						return
					}
					ids := idsOf(objects(r.body["results"]))
					if len(ids) != perRequest {
						f.add("append answered %d blocks: %s", len(ids), r.raw)
						return
					}
					acked[c] = append(acked[c], ids)
					last = ids[perRequest-1]
				}
			})
			f.check(t)
			listed := idsOf(e.kids(t, page))
			if diff := cmp.Diff(listed, idsOf(e.walk(t, "/v2/blocks/"+page+"/children", e.full, 7))); diff != "" {
				t.Fatalf("round %d: the cursor walk differs from one page (-one +walk):\n%s", round, diff)
			}
			checkAppendOrder(t, listed, acked)
			if got := version(t, e.getPage(t, page).header.Get("ETag")); got != before+int64(raceClients*requests) {
				t.Fatalf("round %d: page version %d after %d appends from %d", round, got, raceClients*requests, before)
			}
		}
	})
}

// checkAppendOrder checks the listed order of the blocks acked[client][request][i].
func checkAppendOrder(t *testing.T, listed []string, acked [][][]string) {
	t.Helper()
	at := map[string]int{}
	for i, id := range listed {
		if _, dup := at[id]; dup {
			t.Fatalf("block %s is listed twice", id)
		}
		at[id] = i
	}
	n := 0
	for c, reqs := range acked {
		var prev []string
		for k, ids := range reqs {
			for i, id := range ids {
				n++
				pos, ok := at[id]
				if !ok {
					t.Fatalf("client %d: acknowledged block %s is lost", c, id)
				}
				if i > 0 && pos != at[ids[i-1]]+1 {
					t.Fatalf("client %d request %d: its blocks are split or out of order", c, k)
				}
			}
			if prev != nil {
				first, prevLast, prevFirst := at[ids[0]], at[prev[len(prev)-1]], at[prev[0]]
				switch c % 3 {
				case appendAtEnd:
					if first < prevLast {
						t.Fatalf("client %d: request %d landed before request %d", c, k, k-1)
					}
				case appendChained:
					if first != prevLast+1 {
						t.Fatalf("client %d: request %d is not right after its own block", c, k)
					}
				case appendAtStart:
					if at[ids[len(ids)-1]] > prevFirst {
						t.Fatalf("client %d: request %d at the start landed after request %d", c, k, k-1)
					}
				}
			}
			prev = ids
		}
	}
	if n != len(listed) {
		t.Fatalf("%d blocks listed, %d acknowledged", len(listed), n)
	}
}
