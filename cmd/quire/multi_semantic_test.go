package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/embed"
)

// embedService is an OpenAI-compatible embeddings service (POST /{server}/v1/embeddings) that
// answers with the built-in model's vectors and counts the texts each server sends it: with
// the queue's leases, two indexers never embed one write twice.
type embedService struct {
	mu    sync.Mutex
	texts map[string]int // text → times it was embedded
	by    map[string]int // server → texts it sent
}

func newEmbedService() *embedService {
	return &embedService{texts: map[string]int{}, by: map[string]int{}}
}

func (e *embedService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	server, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	var req struct {
		Input []string `json:"input"`
	}
	if r.Method != http.MethodPost || rest != "v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	vecs, err := embed.Builtin().Embed(r.Context(), req.Input)
	if err != nil {
		http.Error(w, `{"error":"embed"}`, http.StatusInternalServerError)
		return
	}
	e.mu.Lock()
	for _, t := range req.Input {
		e.texts[t]++
	}
	e.by[server] += len(req.Input)
	e.mu.Unlock()
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Data []item `json:"data"`
	}{}
	for i, v := range vecs {
		out.Data = append(out.Data, item{i, v})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func (e *embedService) count(text string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.texts[text]
}

// waitIndexed waits until the shared embedding queue is empty: every write so far is embedded.
func (c *cluster) waitIndexed(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := c.db.QueryRow(`SELECT COUNT(*) FROM embed_pending`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d nodes still queued for embedding after 30 s", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// semantic asks s for the best fragments for query and returns their pages' ids, in order.
func (c *cluster) semantic(t *testing.T, s *server, query string) []string {
	var ids []string
	for _, r := range dig(s.ok(t, "POST", "/v2/search/semantic", c.token, map[string]any{"query": query, "page_size": 5}).body, "results").([]any) {
		ids = append(ids, str(r, "page_id"))
	}
	return ids
}

// testSemantic writes pages through A and searches them through B, whose vector cache was
// loaded before the writes: it must follow the workspace's counter in the database. Both
// indexers run meanwhile on the one queue, and no text is embedded twice.
func (c *cluster) testSemantic(t *testing.T) {
	a, b, tok := c.a, c.b, c.token
	c.waitIndexed(t)
	for _, s := range []*server{a, b} { // load both servers' caches, as of now
		c.semantic(t, s, "anything at all")
	}
	// Each query shares a word with its page, whose keyword bonus keeps the expected first
	// result clear of the model's small differences between CPUs; a page missing from a stale
	// cache would still not be a candidate at all.
	topics := []struct{ title, body, query string }{
		{"Sourdough bread baking", "Feed the starter, knead the dough and bake it in a hot oven.", "how do I bake bread at home"},
		{"Quarterly tax filing", "Collect invoices and receipts, then file the VAT return before the deadline.", "paying tax to the government"},
		{"Marathon training plan", "Long runs on Sundays, intervals on Tuesdays, rest on Fridays.", "preparing to run a long race"},
		{"Kubernetes cluster upgrade", "Drain the nodes one by one and upgrade the control plane first.", "upgrade the kubernetes nodes"},
		{"Wedding guest list", "Invitations, seating plan and the menu for the reception.", "people invited to the wedding party"},
		{"Tomato garden", "Plant the seedlings in spring, water them and stake the vines.", "growing vegetables in the garden"},
	}
	ids := make([]string, len(topics))
	for i, tp := range topics {
		ids[i] = str(a.ok(t, "POST", "/v2/pages", tok, titleBody("", tp.title, tp.body)).body, "id")
	}
	c.waitIndexed(t)
	for i, tp := range topics {
		for _, s := range []*server{b, a} {
			if got := c.semantic(t, s, tp.query); len(got) == 0 || got[0] != ids[i] {
				t.Errorf("semantic search through %s for %q: %v, want %s (%q) first", s.name, tp.query, got, ids[i], tp.title)
			}
		}
		if n := c.emb.count(tp.title); n != 1 {
			t.Errorf("%q was embedded %d times, want once", tp.title, n)
		}
	}
	c.emb.mu.Lock()
	t.Logf("texts embedded per server: %v", c.emb.by)
	c.emb.mu.Unlock()

	// A page renamed through B is found by its new title through A, and no longer by the old.
	b.ok(t, "PATCH", "/v2/pages/"+ids[0], tok, map[string]any{"properties": map[string]any{"title": richText("Chess openings")}})
	c.waitIndexed(t)
	if got := c.semantic(t, a, "the game of chess"); len(got) == 0 || got[0] != ids[0] {
		t.Errorf("A's semantic search for the new title: %v, want %s first", got, ids[0])
	}
	if n := c.emb.count("Chess openings"); n != 1 {
		t.Errorf("the new title was embedded %d times, want once", n)
	}
	// Trash through A: gone from B's results at once (trash is the database's answer).
	a.ok(t, "PATCH", "/v2/pages/"+ids[1], tok, map[string]any{"in_trash": true})
	for _, id := range c.semantic(t, b, topics[1].query) {
		if id == ids[1] {
			t.Errorf("B's semantic search finds the page A trashed")
		}
	}
}
