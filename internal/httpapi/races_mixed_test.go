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

// raceMixedTreeWrites: many clients write to one page tree at once with every kind of
// write that locks pages and blocks (moves, appends, block and title edits, child pages,
// trash then restore), so that two writes taking the same locks in different orders would
// deadlock. On PostgreSQL a deadlock or serialization failure must never surface as a 500;
// SQLite must never answer "database is locked". Every answer is 200, or 400 for a move into
// a cycle or a write to a page that a concurrent trash hides; afterwards the pages (all
// restored) form one tree again.
func raceMixedTreeWrites(t *testing.T, st *store.Store) {
	rounds := raceRounds(2, 20)
	const pageCount, opsPerClient = 12, 6
	e := newEnv(t, st)
	rc := e.racer()
	pages := make([]string, pageCount)
	blocks := make([]string, pageCount)
	for i := range pages {
		parent := wsParent
		if i > 0 {
			parent = pageParent(pages[(i-1)/3])
		}
		pages[i] = e.mkPage(t, e.full, parent, fmt.Sprint("M", i))
		blocks[i] = e.appendKids(t, pages[i], para("text"))[0]["id"].(string)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	var mu sync.Mutex
	all := append([]string(nil), pages...)
	for round := range rounds {
		var f faults
		race(raceClients, func(c int) {
			rnd := rand.New(rand.NewPCG(seed, uint64(round*raceClients+c)))
			for k := range opsPerClient {
				x, y := rnd.IntN(pageCount), rnd.IntN(pageCount)
				what, method, path := "", http.MethodPatch, "/v2/pages/"+pages[x]
				var body any
				switch op := (c + k) % 6; op {
				case 0:
					what, path, body = "move", path+"/move", map[string]any{"parent": pageParent(pages[y])}
				case 1:
					what, path, body = "append", "/v2/blocks/"+pages[x]+"/children", map[string]any{"children": []any{para(fmt.Sprint("c", c))}}
				case 2:
					what, body = "rename", map[string]any{"properties": titleOf(fmt.Sprintf("M%d by %d", x, c))}
				case 3:
					what, path, body = "edit block", "/v2/blocks/"+blocks[x], map[string]any{"paragraph": map[string]any{"rich_text": []any{txt(fmt.Sprint("c", c))}}}
				case 4:
					what, method, path, body = "create", http.MethodPost, "/v2/pages", map[string]any{"parent": pageParent(pages[x]), "properties": titleOf(fmt.Sprint("new by ", c))}
				case 5:
					// Trash, then restore at once: a page in trash hides its subtree meanwhile.
					what, body = "trash", map[string]any{"in_trash": true}
				}
				r, err := rc.send(method, path, body)
				if !f.answered(what, r, err, 200, 400) {
					continue
				}
				if r.status == 400 && !hasDetail(r, "parent.page_id", quire.ReasonCycle) && !hasReason(r, quire.ReasonArchived) {
					f.add("%s refused: %s", what, r.raw)
				}
				if r.status == 200 && what == "create" {
					mu.Lock()
					all = append(all, r.body["id"].(string))
					mu.Unlock()
				}
				if r.status == 200 && what == "trash" {
					r, err := rc.send(http.MethodPatch, path, map[string]any{"in_trash": false})
					f.answered("restore", r, err, 200)
				}
			}
		})
		f.check(t)
		e.checkPageForest(t, all)
	}
}
