package httpapi

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// raceMoves: many clients move the pages of one tree under each other at random, pairs of
// them A under B while B under A. A move either applies or answers 400 cycle (or 400 at after
// when its sibling left meanwhile); afterwards the pages still form one tree.
func raceMoves(t *testing.T, st *store.Store) {
	rounds := raceRounds(2, 40)
	const pageCount, movesPerClient = 16, 6
	e := newEnv(t, st)
	rc := e.racer()
	pages := make([]string, pageCount)
	for i := range pages {
		parent := wsParent
		if i > 0 {
			parent = pageParent(pages[(i-1)/2])
		}
		pages[i] = e.mkPage(t, e.full, parent, fmt.Sprint("P", i))
		if i%3 == 0 { // content beside the child_page blocks
			e.appendKids(t, pages[i], para(fmt.Sprint("text of P", i)))
		}
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	applied := map[string]map[string]bool{} // page → parents it was moved to ("" = workspace)
	var mu sync.Mutex
	moves, cycles := 0, 0
	for round := range rounds {
		var f faults
		race(raceClients, func(c int) {
			rnd := rand.New(rand.NewPCG(seed, uint64(round*raceClients+c)))
			for m := range movesPerClient {
				x, y := rnd.IntN(pageCount), rnd.IntN(pageCount)
				if m == 0 { // clients 2k and 2k+1 cross: A under B while B under A
					x, y = (c/2)%pageCount, (c/2+1+round)%pageCount
					if c%2 == 1 {
						x, y = y, x
					}
				}
				body := map[string]any{"parent": pageParent(pages[y])}
				to := pages[y]
				if rnd.IntN(8) == 0 {
					body["parent"], to = wsParent, ""
				}
				if rnd.IntN(4) == 0 { // after a sibling that may have moved away meanwhile
					body["after"] = pages[rnd.IntN(pageCount)]
				}
				r, err := rc.send(http.MethodPatch, "/v2/pages/"+pages[x]+"/move", body)
				if !f.answered("move", r, err, 200, 400) {
					continue
				}
				mu.Lock()
				if r.status == 200 {
					moves++
					if applied[pages[x]] == nil {
						applied[pages[x]] = map[string]bool{}
					}
					applied[pages[x]][to] = true
				} else if !moveRefusal(r, to == pages[x]) {
					f.add("move %d under %d: %s", x, y, r.raw)
				} else {
					cycles++
				}
				mu.Unlock()
			}
		})
		f.check(t)
		parents := e.checkPageForest(t, pages)
		for id, p := range parents {
			if applied[id] != nil && !applied[id][p] {
				t.Fatalf("page %s is under %q, where no move put it", id, p)
			}
		}
	}
	t.Logf("%d moves applied, %d refused", moves, cycles)
}

// moveRefusal tells whether a 400 is one a racing move may get: a cycle, or an after that is
// no longer a sibling under the new parent.
func moveRefusal(r *response, self bool) bool {
	if r.body["code"] != quire.CodeValidation {
		return false
	}
	for _, d := range r.body["details"].([]any) {
		d := d.(map[string]any)
		if d["path"] == "parent.page_id" && d["reason"] == quire.ReasonCycle {
			return true
		}
		if !self && d["path"] == "after" && d["reason"] == quire.ReasonInvalidValue {
			return true
		}
	}
	return false
}

// checkPageForest walks the workspace from its top level down through child_page blocks (every
// listing read in small pages) and checks that pages are exactly what it reaches, each once,
// with the parent each page reports, and that GET /v2/pages lists them all. It returns every
// page's parent ("" for the workspace).
func (e *env) checkPageForest(t *testing.T, pages []string) map[string]string {
	t.Helper()
	parentOf := map[string]string{}
	queue := []string{}
	for _, o := range e.walk(t, "/v2/workspace/pages/top_level", e.full, 5) {
		id := o["id"].(string)
		if _, dup := parentOf[id]; dup {
			t.Fatalf("page %s is listed twice at the top level", id)
		}
		parentOf[id] = ""
		queue = append(queue, id)
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, b := range e.walk(t, "/v2/blocks/"+id+"/children", e.full, 3) {
			if b["type"] != "child_page" {
				continue
			}
			kid := b["id"].(string)
			if p, seen := parentOf[kid]; seen {
				t.Fatalf("page %s is reached under %q and again under %s", kid, p, id)
			}
			parentOf[kid] = id
			queue = append(queue, kid)
		}
	}
	if len(parentOf) != len(pages) {
		t.Fatalf("%d pages reached from the top level, want %d", len(parentOf), len(pages))
	}
	for _, id := range pages {
		want, ok := parentOf[id]
		if !ok {
			t.Fatalf("page %s is lost: not reachable from the top level", id)
		}
		p := e.getPage(t, id).body["parent"].(map[string]any)
		got, _ := p["page_id"].(string)
		if got != want || (want == "") != (p["type"] == "workspace") {
			t.Fatalf("page %s says its parent is %v; it is listed under %q", id, p, want)
		}
	}
	// Moves never hide a page: /v2/pages lists each one.
	if diff := cmp.Diff(sorted(pages), sorted(e.pageIDs(t, "/v2/pages", e.full))); diff != "" {
		t.Fatalf("GET /v2/pages (-pages +listed):\n%s", diff)
	}
	return parentOf
}
