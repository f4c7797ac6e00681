package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestCompat_SemanticFragments sends POST /v2/search/semantic as the original service's clients
// send it ({query, page_size, start_cursor: null, space_id, score_threshold}) and reads the
// answer as they do: a list of fragments {object, page_id, block_id, score, text}, best first,
// ten to a page by default, paginated by next_cursor.
func TestCompat_SemanticFragments(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		guide := e.mkPage(t, e.full, wsParent, "Volcano field guide")
		kids := e.appendKids(t, guide,
			para("Lava flows from the volcano crater."),
			para("Ash clouds drift over the valley."),
			para(strings.Repeat("Magma chambers feed every eruption of the volcano below the crater. ", 25)))
		for i := range 12 {
			p := e.mkPage(t, e.full, wsParent, fmt.Sprintf("Volcano trip %d", i))
			e.appendKids(t, p, para(fmt.Sprintf("Day %d of hiking near the crater.", i)))
		}
		drain(t, e.svc)

		search := func(body map[string]any) *response {
			t.Helper()
			r := e.do(http.MethodPost, "/v2/search/semantic", e.full, body)
			wantOK(t, r, 200)
			return r
		}
		type frag struct {
			Page, Text string
			Block      any
			Score      float64
		}
		read := func(r *response) []frag {
			t.Helper()
			var out []frag
			for _, f := range objects(r.body["results"]) {
				if f["object"] != "semantic_search_result" || f["url"] == "" || f["title"] == "" || f["parent"] == nil {
					t.Fatalf("fragment fields: %v", f)
				}
				score := f["score"].(float64)
				if score < 0 || score > 1 || (len(out) > 0 && score > out[len(out)-1].Score) {
					t.Fatalf("scores not 0–1 and best first: %s", r.raw)
				}
				out = append(out, frag{f["page_id"].(string), f["text"].(string), f["block_id"], score})
			}
			return out
		}

		// The default page is ten fragments, and a cursor follows.
		first := search(map[string]any{"query": "lava ash clouds", "start_cursor": nil, "space_id": e.ws.ID})
		if got := read(first); len(got) != 10 || first.body["has_more"] != true || first.body["next_cursor"] == nil {
			t.Fatalf("default page: %d fragments, has_more %v: %s", len(got), first.body["has_more"], first.raw)
		}
		all := read(search(map[string]any{"query": "lava ash clouds", "page_size": 100}))
		// The guide's fragments: its title (no block), the chunk that starts at the first block
		// (the short blocks and the long one's start packed together), then the long block's.
		var title, lava, magma int
		for _, f := range all {
			switch {
			case f.Page != guide:
			case f.Text == "Volcano field guide" && f.Block == nil:
				title++
			case strings.HasPrefix(f.Text, "Lava flows from the volcano crater. Ash clouds drift over the valley. Magma") && f.Block == kids[0]["id"]:
				lava++
			case strings.HasPrefix(f.Text, "Magma chambers") && f.Block == kids[2]["id"]:
				magma++
			default:
				t.Errorf("guide fragment %q at block %v", f.Text, f.Block)
			}
		}
		if title != 1 || lava != 1 || magma < 2 {
			t.Errorf("guide fragments: %d title, %d first chunk, %d of the long block", title, lava, magma)
		}
		if all[0].Page != guide {
			t.Errorf("best fragment %+v, want the guide's", all[0])
		}

		// Page by page with the cursor: the same fragments in the same order, none twice.
		var walked []frag
		body := map[string]any{"query": "lava ash clouds", "page_size": 4, "start_cursor": nil}
		for range 50 {
			r := search(body)
			walked = append(walked, read(r)...)
			if r.body["has_more"] != true {
				if r.body["next_cursor"] != nil {
					t.Fatalf("last page with a cursor: %s", r.raw)
				}
				break
			}
			body["start_cursor"] = r.body["next_cursor"]
		}
		if diff := cmp.Diff(all, walked); diff != "" {
			t.Fatalf("pages walked differ from one page of all (-all +walked):\n%s", diff)
		}

		// score_threshold keeps the prefix that scores at least it.
		cut := all[2].Score
		kept := read(search(map[string]any{"query": "lava ash clouds", "page_size": 100, "score_threshold": cut}))
		n := 0
		for n < len(all) && all[n].Score >= cut {
			n++
		}
		if n == len(all) || !cmp.Equal(kept, all[:n]) {
			t.Fatalf("threshold %v kept %d of %d fragments, want the %d scoring at least it", cut, len(kept), len(all), n)
		}

		// Another workspace's id is not found; a cursor of another query is refused.
		r := e.do(http.MethodPost, "/v2/search/semantic", e.full, map[string]any{"query": "volcano", "space_id": quire.NewID()})
		r.wantError(t, http.StatusNotFound, quire.CodeNotFound, "")
		r = e.do(http.MethodPost, "/v2/search/semantic", e.full, map[string]any{"query": "hiking", "start_cursor": first.body["next_cursor"]})
		wantDetail(t, r, http.StatusBadRequest, quire.CodeValidation, "start_cursor", quire.ReasonInvalidValue)
		// Quire's own filter still narrows: no databases here.
		r = search(map[string]any{"query": "volcano", "filter": map[string]any{"property": "object", "value": "database"}})
		if got := read(r); len(got) != 0 {
			t.Fatalf("database filter: %v", got)
		}
	})
}
