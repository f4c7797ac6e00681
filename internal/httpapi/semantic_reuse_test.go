package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSemanticSearch_ReusesUnchangedChunks follows a long page through an append and a rename:
// each time only the chunks whose text changed go to the model, the others keep their vectors,
// and the page is found by its new text.
func TestSemanticSearch_ReusesUnchangedChunks(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		long := e.mkPage(t, e.full, wsParent, "Long read")
		var kids []any
		for i := range 40 {
			kids = append(kids, para(strings.Repeat("Filler sentence number "+string(rune('a'+i%26))+" about nothing. ", 6)))
		}
		e.appendKids(t, long, kids...)
		drain(t, e.svc)
		first := e.svc.IndexStats()
		if first.Chunks < 5 || first.Reused != 0 {
			t.Fatalf("first indexing: %+v, want several chunks embedded and none reused", first)
		}

		e.appendKids(t, long, para("The submarine volcano erupted near the reef."))
		drain(t, e.svc)
		appended := e.svc.IndexStats()
		embedded, reused := appended.Chunks-first.Chunks, appended.Reused-first.Reused
		if embedded < 1 || embedded > 2 || reused < first.Chunks-2 {
			t.Fatalf("after an append at the end: %d embedded, %d reused, of %d chunks", embedded, reused, first.Chunks)
		}
		if got := e.semanticIDs(t, e.full, map[string]any{"query": "submarine volcano reef", "page_size": 1}); !slices.Equal(got, []string{long}) {
			t.Fatalf("the appended sentence: %v", got)
		}

		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+long, e.full, map[string]any{"properties": titleOf("Ocean chronicle")}), 200)
		drain(t, e.svc)
		renamed := e.svc.IndexStats()
		if embedded := renamed.Chunks - appended.Chunks; embedded != 1 {
			t.Fatalf("after a rename: %d chunks embedded, want only the title", embedded)
		}
		if got := e.semanticIDs(t, e.full, map[string]any{"query": "ocean chronicle", "page_size": 1}); !slices.Equal(got, []string{long}) {
			t.Fatalf("the new title: %v", got)
		}
	})
}
