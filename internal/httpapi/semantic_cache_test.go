package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSemanticSearch_CacheMatchesStreaming compares the vector cache (the default) with services
// on the same store that stream every vector (cache off) or whose bound is too small to hold the
// workspace: the same results, scores included, before and after edits, trash, a deleted block,
// for a workspace token and a token granted one page, with and without a filter.
func TestSemanticSearch_CacheMatchesStreaming(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		words := []string{"volcano", "garden", "budget", "cats", "servers", "reef", "tomatoes", "tax", "hiking", "music"}
		var pages []string
		for i := range 40 {
			id := e.mkPage(t, e.full, wsParent, fmt.Sprintf("%s notes %d", words[i%len(words)], i))
			e.appendKids(t, id, para(fmt.Sprintf("About %s and %s, part %d.", words[(i*3)%len(words)], words[(i*7+1)%len(words)], i)))
			pages = append(pages, id)
		}
		drain(t, e.svc)
		ctx := context.Background()
		streaming := service.New(st, service.Options{Embedder: wordHashEmbedder{model: "word-hash-64"}, VectorCacheBytes: -1})
		tiny := service.New(st, service.Options{Embedder: wordHashEmbedder{model: "word-hash-64"}, VectorCacheBytes: 1000})
		granted := e.token([]quire.Scope{quire.SearchRead}, false, pages[3])

		type hit struct {
			ID    string
			Chunk int
			Score float64
		}
		run := func(svc *service.Service, token string, r service.SemanticRequest) []hit {
			t.Helper()
			p, err := svc.Authenticate(ctx, "Bearer "+token)
			if err != nil {
				t.Fatal(err)
			}
			hits, err := svc.SemanticSearch(ctx, p, r)
			if err != nil {
				t.Fatal(err)
			}
			var out []hit
			for _, h := range hits.Items {
				// Pages by their best fragment: the first of each page.
				if !slices.ContainsFunc(out, func(o hit) bool { return o.ID == h.NodeID }) {
					out = append(out, hit{h.NodeID, h.Chunk, h.Score})
				}
			}
			return out
		}
		compare := func(stage string) {
			t.Helper()
			for _, token := range []string{e.full, granted} {
				for _, r := range []service.SemanticRequest{
					{Query: "volcano reef", PageSize: 100},
					{Query: "budget for servers", PageSize: 5},
					{Query: "cats", Object: "database", PageSize: 10},
					{Query: "garden tomatoes", Object: "page", PageSize: 20},
				} {
					want := run(streaming, token, r)
					if got := run(e.svc, token, r); !cmp.Equal(got, want) {
						t.Errorf("%s, %q: cached %v\nstreamed %v", stage, r.Query, got, want)
					}
					if got := run(tiny, token, r); !cmp.Equal(got, want) {
						t.Errorf("%s, %q: past the bound %v\nstreamed %v", stage, r.Query, got, want)
					}
				}
			}
		}
		compare("first load")
		if got := run(e.svc, e.full, service.SemanticRequest{Query: "volcano reef", PageSize: 100}); len(got) != len(pages) {
			t.Fatalf("%d results, want all %d pages", len(got), len(pages))
		}

		// Writes after the cache loaded: a rename, a trashed page, a page whose block is deleted.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+pages[1], e.full, map[string]any{"properties": titleOf("Volcano reef expedition")}), 200)
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+pages[0], e.full, nil), 200)
		kids := e.do(http.MethodGet, "/v2/blocks/"+pages[2]+"/children", e.full, nil)
		wantOK(t, kids, 200)
		block := objects(kids.body["results"])[0]["id"].(string)
		wantOK(t, e.do(http.MethodDelete, "/v2/blocks/"+block, e.full, nil), 200)
		drain(t, e.svc)
		compare("after writes")
		got := run(e.svc, e.full, service.SemanticRequest{Query: "volcano reef expedition", PageSize: 1})
		if len(got) != 1 || got[0].ID != pages[1] {
			t.Fatalf("renamed page: %v", got)
		}
	})
}
