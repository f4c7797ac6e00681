package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strconv"
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

// TestSemanticSearch_AppendPastWhatIsEmbedded: an append after a page's first 200 entries (all
// the indexer reads of it) changes none of its vectors, so the indexer's pass over it writes
// none: no chunk embedded, the workspace's vector version unchanged (the semantic caches keep
// theirs), the queue emptied, and the page still found by its text. It fails if the indexer
// rewrites an unchanged page's vectors, as every append to a long page did before.
func TestSemanticSearch_AppendPastWhatIsEmbedded(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		long := e.mkPage(t, e.full, wsParent, "Long read")
		var kids []any
		for i := range 210 {
			kids = append(kids, para("Entry "+strconv.Itoa(i)+" tells of the lighthouse keeper and the storm."))
		}
		var last string
		for i := 0; i < len(kids); i += 100 {
			got := e.appendKids(t, long, kids[i:min(i+100, len(kids))]...)
			last = got[len(got)-1]["id"].(string)
		}
		drain(t, e.svc)
		ws := e.ws.ID
		before := e.svc.IndexStats()
		version, err := st.VectorVersion(context.Background(), ws)
		if err != nil {
			t.Fatal(err)
		}
		// Into the last block: an append into a block queues its page (at the end of the page it
		// would not: TestAppend_PastTheWindowQueuesNothing).
		e.appendKids(t, last, para("A volcano far below the last entry."))
		if n, err := st.EmbedQueueLength(context.Background()); err != nil || n != 1 {
			t.Fatalf("queue after the append: %d, %v; want the page", n, err)
		}
		drain(t, e.svc)
		after := e.svc.IndexStats()
		if after.Chunks != before.Chunks || after.Nodes != before.Nodes+1 {
			t.Fatalf("index stats %+v after %+v: want the page taken once and nothing embedded", after, before)
		}
		if v, err := st.VectorVersion(context.Background(), ws); err != nil || v != version {
			t.Fatalf("vector version %d, %v; want %d (no vector changed)", v, err, version)
		}
		if n, err := st.EmbedQueueLength(context.Background()); err != nil || n != 0 {
			t.Fatalf("queue after the pass: %d, %v", n, err)
		}
		if got := e.semanticIDs(t, e.full, map[string]any{"query": "lighthouse keeper storm", "page_size": 1}); !slices.Equal(got, []string{long}) {
			t.Fatalf("the page by its text: %v", got)
		}
		// An edit within the first entries is embedded and versioned as before.
		e.appendKids(t, last, para("unused")) // queued again, still unchanged
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+long, e.full, map[string]any{"properties": titleOf("Ocean chronicle")}), 200)
		drain(t, e.svc)
		if s := e.svc.IndexStats(); s.Chunks != after.Chunks+1 {
			t.Fatalf("after a rename: %d chunks embedded, want the title's", s.Chunks-after.Chunks)
		}
		if v, err := st.VectorVersion(context.Background(), ws); err != nil || v <= version {
			t.Fatalf("vector version after a rename %d, %v; want above %d", v, err, version)
		}
	})
}
