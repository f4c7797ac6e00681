package httpapi

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// raceMindMapEdits: many clients edit one mind map at once without If-Match, adding nodes
// and moving nodes under each other (pairs of them crossing). Every edit applies or a move
// answers 400 cycle; afterwards the map is one tree holding every node once, every
// acknowledged node included, and its version counts every applied edit.
func raceMindMapEdits(t *testing.T, st *store.Store) {
	rounds := raceRounds(2, 30)
	const nodes = 8
	e := newEnv(t, st)
	rc := e.racer()
	var kids []any
	for i := range nodes {
		kids = append(kids, mmNode(fmt.Sprint("N", i)))
	}
	mm := e.mkMindMap(t, e.full, map[string]any{"parent": wsParent, "title": "Busy", "root": mmNode("root", kids...)})
	path := "/v2/mind-maps/" + mm.body["id"].(string)
	ids := nodeIDs(rootOf(mm))
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	added := map[string]bool{}
	applied := 0
	for round := range rounds {
		before := version(t, e.do(http.MethodGet, path, e.full, nil).header.Get("ETag"))
		var f faults
		var mu sync.Mutex
		applied = 0
		race(raceClients, func(c int) {
			rnd := rand.New(rand.NewPCG(seed, uint64(round*raceClients+c)))
			a, b := ids[fmt.Sprint("N", (c/2)%nodes)], ids[fmt.Sprint("N", (c/2+1+round)%nodes)]
			if c%2 == 1 {
				a, b = b, a
			}
			text := fmt.Sprintf("r%d-c%d", round, c)
			edits := []any{
				map[string]any{"op": "move", "node_id": a, "parent_id": b},
				map[string]any{"op": "add", "parent_id": ids[fmt.Sprint("N", rnd.IntN(nodes))], "node": map[string]any{"text": text}},
			}
			for k, edit := range edits {
				r, err := rc.send(http.MethodPatch, path, map[string]any{"edits": []any{edit}})
				if !f.answered("mind-map edit", r, err, 200, 400) {
					return
				}
				if r.status == 400 && (k == 1 || !hasDetail(r, "edits[0].parent_id", quire.ReasonCycle)) {
					f.add("edit %v refused: %s", edit, r.raw)
					continue
				}
				mu.Lock()
				if r.status == 200 {
					applied++
					if k == 1 {
						added[text] = true
					}
				}
				mu.Unlock()
			}
		})
		f.check(t)
		after := e.do(http.MethodGet, path, e.full, nil)
		wantOK(t, after, 200)
		all := treeIDs(rootOf(after))
		seen := map[string]bool{}
		for _, id := range all {
			if seen[id] {
				t.Fatalf("node %s is in the map twice", id)
			}
			seen[id] = true
		}
		texts := nodeIDs(rootOf(after))
		for text := range added {
			if texts[text] == "" {
				t.Fatalf("acknowledged node %q is lost", text)
			}
		}
		if len(all) != 1+nodes+len(added) {
			t.Fatalf("%d nodes, want %d", len(all), 1+nodes+len(added))
		}
		if got := version(t, after.header.Get("ETag")); got != before+int64(applied) {
			t.Fatalf("round %d: version %d after %d edits from %d", round, got, applied, before)
		}
	}
}

// hasDetail tells whether an error body has the detail {path, reason}.
func hasDetail(r *response, path, reason string) bool {
	details, _ := r.body["details"].([]any)
	for _, d := range details {
		if d, _ := d.(map[string]any); d["path"] == path && d["reason"] == reason {
			return true
		}
	}
	return false
}
