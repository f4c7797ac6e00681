package httpapi

import (
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/store"
)

// How a racing client places its appends.
const (
	appendAtEnd   = iota // no placement: at the end
	appendChained        // the first at the end, then each after the client's own last block
	appendAtStart        // position start
)

// raceAppends: many clients append to one page at once, at the end, after their own last
// block, or at the start. Every acknowledged block is there once and nothing else; each
// request's blocks stay together and in order; a client's appends at the end keep its order,
// its chain after its own blocks stays unbroken, its appends at the start come in reverse; the
// blocks there before stay together; the listing is the same read in one page or walked with a
// cursor, and a cursor walk during the appends returns every earlier block once and in order
// (contract §4); the page's version counts each append once.
func raceAppends(t *testing.T, st *store.Store) {
	rounds := raceRounds(2, 30)
	const requests, perRequest = 4, 2
	e := newEnv(t, st)
	rc := e.racer()
	for round := range rounds {
		page := e.mkPage(t, e.full, wsParent, fmt.Sprint("Appends ", round))
		var earlier []any
		for i := range 20 {
			earlier = append(earlier, para(fmt.Sprint("earlier ", i)))
		}
		seeds := idsOf(e.appendKids(t, page, earlier...))
		before := version(t, e.getPage(t, page).header.Get("ETag"))
		acked := make([][][]string, raceClients) // client → request → block ids
		var f faults
		var appending atomic.Int32
		appending.Store(int32(raceClients))
		walks := 0
		race(raceClients+1, func(c int) {
			if c == raceClients {
				walks = walkDuringAppends(rc, &f, page, seeds, &appending)
				return
			}
			defer appending.Add(-1)
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
		checkAppendOrder(t, listed, seeds, acked)
		t.Logf("round %d: %d blocks, %d cursor walks during the appends", round, len(listed), walks)
		if got := version(t, e.getPage(t, page).header.Get("ETag")); got != before+int64(raceClients*requests) {
			t.Fatalf("round %d: page version %d after %d appends from %d", round, got, raceClients*requests, before)
		}
	}
}

// walkDuringAppends walks the page's children with a cursor, five at a time, again and again
// until the appends are over, and reports a walk that misses, repeats or reorders the blocks
// that were there before (seeds). It returns how many walks it made; a few are enough to
// cross the appends in the short variant.
func walkDuringAppends(rc *racer, f *faults, page string, seeds []string, appending *atomic.Int32) int {
	walks, most := 0, raceRounds(5, 50)
	for walks == 0 || (appending.Load() > 0 && walks < most) {
		walks++
		var got []string
		seen := map[string]bool{}
		for cursor := ""; ; {
			path := "/v2/blocks/" + page + "/children?page_size=5"
			if cursor != "" {
				path += "&start_cursor=" + cursor
			}
			r, err := rc.send(http.MethodGet, path, nil)
			if !f.answered("walk", r, err, 200) {
				return walks
			}
			for _, id := range idsOf(objects(r.body["results"])) {
				if seen[id] {
					f.add("a cursor walk returned block %s twice", id)
					return walks
				}
				seen[id] = true
				if slices.Contains(seeds, id) {
					got = append(got, id)
				}
			}
			if cursor, _ = r.body["next_cursor"].(string); cursor == "" {
				break
			}
		}
		if !slices.Equal(got, seeds) {
			f.add("a cursor walk during appends returned %d of the %d earlier blocks, or out of order", len(got), len(seeds))
			return walks
		}
	}
	return walks
}

// checkAppendOrder checks the listed order of the blocks there before (seeds) and of those
// acknowledged, acked[client][request][i].
func checkAppendOrder(t *testing.T, listed, seeds []string, acked [][][]string) {
	t.Helper()
	at := map[string]int{}
	for i, id := range listed {
		if _, dup := at[id]; dup {
			t.Fatalf("block %s is listed twice", id)
		}
		at[id] = i
	}
	for i, id := range seeds {
		if pos, ok := at[id]; !ok || (i > 0 && pos != at[seeds[i-1]]+1) {
			t.Fatalf("the blocks there before the appends are lost, split or reordered")
		}
	}
	n := len(seeds)
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
