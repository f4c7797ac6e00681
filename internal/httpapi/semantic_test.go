package httpapi

import (
	"context"
	"hash/fnv"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// wordHashEmbedder is a small real embedding: words (and Han or kana characters) hashed into 64
// buckets, normalized. Texts that share words are close; it knows no synonyms. The offline
// model's own tests show meaning; these tests show the queue, the index and the ranking.
type wordHashEmbedder struct{ model string }

func (w wordHashEmbedder) ID() string { return w.model }
func (w wordHashEmbedder) Dim() int   { return 64 }
func (w wordHashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		for _, word := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			h := fnv.New32a()
			h.Write([]byte(strings.TrimSuffix(word, "s")))
			v[h.Sum32()%64]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

// drain runs the indexer until the queue is empty.
func drain(t testing.TB, svc *service.Service) {
	t.Helper()
	ix := service.NewIndexer(svc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for i := 0; ; i++ {
		n, err := ix.RunOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if i > 1000 {
			t.Fatal("the embedding queue does not drain")
		}
	}
}

// semanticIDs runs a semantic search for body and returns the pages of the fragments, each at
// its best fragment, at most body's page_size of them (all without one): pages ranked as their
// fragments rank. It asks for 100 fragments, enough for every page of these tests.
func (e *env) semanticIDs(t testing.TB, token string, body map[string]any) []string {
	t.Helper()
	n, _ := body["page_size"].(int)
	body = maps.Clone(body)
	body["page_size"] = 100
	r := e.do(http.MethodPost, "/v2/search/semantic", token, body)
	wantOK(t, r, 200)
	return fragmentPages(t, r, n)
}

// fragmentPages lists the distinct page_id of an answer's fragments in order, at most n (0: all).
func fragmentPages(t testing.TB, r *response, n int) []string {
	t.Helper()
	var ids []string
	for _, f := range objects(r.body["results"]) {
		if f["object"] != "semantic_search_result" {
			t.Fatalf("not a fragment: %v", f)
		}
		if id := f["page_id"].(string); !slices.Contains(ids, id) && (n == 0 || len(ids) < n) {
			ids = append(ids, id)
		}
	}
	return ids
}

func TestSemanticSearch(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		cats := e.mkPage(t, e.full, wsParent, "Pets at home")
		e.appendKids(t, cats, para("Cats sleep most of the day and purr on the sofa."))
		garden := e.mkPage(t, e.full, wsParent, "Garden")
		e.appendKids(t, garden, para("Tomatoes need sun and water every day."))
		budget := e.mkPage(t, e.full, wsParent, "Budget 2027")
		e.appendKids(t, budget, para("Revenue grew; costs of cloud servers fell."))
		drain(t, e.svc)

		got := e.semanticIDs(t, e.full, map[string]any{"query": "do cats purr", "page_size": 3})
		if len(got) != 3 || got[0] != cats {
			t.Fatalf("cats query: %v, want %s first", got, cats)
		}
		got = e.semanticIDs(t, e.full, map[string]any{"query": "cloud costs", "page_size": 1})
		if !slices.Equal(got, []string{budget}) {
			t.Fatalf("costs query: %v", got)
		}
		// A long page is embedded in chunks: a sentence deep in it is found.
		long := e.mkPage(t, e.full, wsParent, "Long read")
		var kids []any
		for i := range 40 {
			kids = append(kids, para(strings.Repeat("Filler sentence number "+string(rune('a'+i%26))+" about nothing. ", 6)))
		}
		kids = append(kids, para("The submarine volcano erupted near the reef."))
		e.appendKids(t, long, kids...)
		drain(t, e.svc)
		if got := e.semanticIDs(t, e.full, map[string]any{"query": "submarine volcano reef", "page_size": 1}); !slices.Equal(got, []string{long}) {
			t.Fatalf("deep sentence: %v", got)
		}

		// Trash hides; a granted token sees only its own; the filter narrows.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+cats, e.full, nil), 200)
		if got := e.semanticIDs(t, e.full, map[string]any{"query": "cats purr"}); slices.Contains(got, cats) {
			t.Fatalf("trashed page found: %v", got)
		}
		granted := e.token([]quire.Scope{quire.SearchRead}, false, garden)
		if got := e.semanticIDs(t, granted, map[string]any{"query": "cloud costs"}); !slices.Equal(got, []string{garden}) {
			t.Fatalf("granted token: %v", got)
		}
		if got := e.semanticIDs(t, e.full, map[string]any{"query": "cloud", "filter": map[string]any{"property": "object", "value": "database"}}); len(got) != 0 {
			t.Fatalf("databases: %v", got)
		}

		// An edit is found once embedded again.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+garden, e.full, map[string]any{"properties": titleOf("Submarine garden")}), 200)
		drain(t, e.svc)
		if got := e.semanticIDs(t, e.full, map[string]any{"query": "submarine garden", "page_size": 1}); !slices.Equal(got, []string{garden}) {
			t.Fatalf("after a rename: %v", got)
		}
	})
}

func TestSemanticSearch_QueueAndModels(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Volcano notes")
		// Not embedded yet: not found, and the work waits in the database.
		if got := e.semanticIDs(t, e.full, map[string]any{"query": "volcano"}); len(got) != 0 {
			t.Fatalf("found before embedding: %v", got)
		}
		if n, err := st.EmbedQueueLength(context.Background()); err != nil || n == 0 {
			t.Fatalf("queue length %d, %v", n, err)
		}
		// Another service on the same store (a restart, another server) finds the queue.
		other := service.New(st, service.Options{Embedder: wordHashEmbedder{model: "word-hash-64"}})
		drain(t, other)
		if got := e.semanticIDs(t, e.full, map[string]any{"query": "volcano"}); !slices.Equal(got, []string{page}) {
			t.Fatalf("after the other indexer: %v", got)
		}
		// A server with another model ignores the old vectors and embeds everything again.
		v2 := newEnv(t, st, envOptions{embedder: wordHashEmbedder{model: "word-hash-64-v2"}})
		v2page := v2.mkPage(t, v2.full, wsParent, "Volcano again")
		if got := v2.semanticIDs(t, v2.full, map[string]any{"query": "volcano"}); len(got) != 0 {
			t.Fatalf("another model's vectors used: %v", got)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			service.NewIndexer(v2.svc, slog.New(slog.NewTextHandler(io.Discard, nil))).Run(ctx)
			close(done)
		}()
		defer func() { cancel(); <-done }()
		// The background indexer makes a write searchable within seconds.
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := v2.semanticIDs(t, v2.full, map[string]any{"query": "volcano"})
			if slices.Equal(got, []string{v2page}) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not searchable after 10 s: %v", got)
			}
			time.Sleep(50 * time.Millisecond)
		}
		// The first workspace's page was embedded again with the new model too.
		for {
			r := v2.do(http.MethodPost, "/v2/search/semantic", e.full, map[string]any{"query": "volcano"})
			wantOK(t, r, 200)
			if slices.Equal(fragmentPages(t, r, 0), []string{page}) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("old vectors not re-embedded: %s", r.raw)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func TestSemanticSearch_BadRequests(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		for _, tc := range []struct {
			name         string
			body         any
			path, reason string
		}{
			{"no query", map[string]any{}, "query", quire.ReasonRequired},
			{"empty query", map[string]any{"query": "  "}, "query", quire.ReasonRequired},
			{"query not a string", map[string]any{"query": []any{}}, "query", quire.ReasonInvalidType},
			{"cursor", map[string]any{"query": "x", "start_cursor": "x"}, "start_cursor", quire.ReasonInvalidValue},
			{"cursor not a string", map[string]any{"query": "x", "start_cursor": 3}, "start_cursor", quire.ReasonInvalidType},
			{"space not a string", map[string]any{"query": "x", "space_id": true}, "space_id", quire.ReasonInvalidType},
			{"threshold not a number", map[string]any{"query": "x", "score_threshold": "0.5"}, "score_threshold", quire.ReasonInvalidType},
			{"threshold above 1", map[string]any{"query": "x", "score_threshold": 1.5}, "score_threshold", quire.ReasonOutOfRange},
			{"threshold below 0", map[string]any{"query": "x", "score_threshold": -0.1}, "score_threshold", quire.ReasonOutOfRange},
			{"unknown field", map[string]any{"query": "x", "top_k": 3}, "top_k", quire.ReasonUnknownField},
			{"filter", map[string]any{"query": "x", "filter": map[string]any{"property": "object", "value": "x"}}, "filter.value", quire.ReasonInvalidValue},
			{"page size", map[string]any{"query": "x", "page_size": 0}, "page_size", quire.ReasonOutOfRange},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantDetail(t, e.do(http.MethodPost, "/v2/search/semantic", e.full, tc.body), 400, quire.CodeValidation, tc.path, tc.reason)
			})
		}
	})
}

// TestSemanticSearch_BuiltinModel runs the offline model end to end: a page about cats answers
// "feline companions", with no word in common.
func TestSemanticSearch_BuiltinModel(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st, envOptions{embedder: embed.Builtin()})
		cats := e.mkPage(t, e.full, wsParent, "Our cats")
		e.appendKids(t, cats, para("Kittens nap in the sun and chase string."))
		taxes := e.mkPage(t, e.full, wsParent, "Tax return")
		e.appendKids(t, taxes, para("File the quarterly VAT statement before the deadline."))
		hike := e.mkPage(t, e.full, wsParent, "Weekend hike")
		e.appendKids(t, hike, para("We climbed the mountain trail and camped by the lake."))
		drain(t, e.svc)
		for q, want := range map[string]string{
			"feline companions":         cats,
			"paying the government":     taxes,
			"outdoor trip in the woods": hike,
		} {
			if got := e.semanticIDs(t, e.full, map[string]any{"query": q, "page_size": 1}); !slices.Equal(got, []string{want}) {
				t.Errorf("%q: %v, want %s", q, got, want)
			}
		}
	})
}

// TestSemanticSearch_EmbeddingsOutage: an outside embeddings service that refuses the query is
// a passing outage, answered 503 service_unavailable in the error shape, never a 500.
func TestSemanticSearch_EmbeddingsOutage(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized) // not retried: the answer comes at once
		_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided"}}`)
	}))
	t.Cleanup(upstream.Close)
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st, envOptions{embedder: embed.OpenAI(upstream.URL, "text-embedding-3-small", "wrong", nil)})
		r := e.do(http.MethodPost, "/v2/search/semantic", e.full, map[string]any{"query": "volcano"})
		r.wantError(t, http.StatusServiceUnavailable, quire.CodeUnavailable, "")
		if strings.Contains(string(r.raw), "API key") {
			t.Fatalf("the upstream's answer leaked to the client: %s", r.raw)
		}
	})
}

// TestSemanticSearch_CJK: the built-in model reads English, but Chinese and Japanese pages are
// indexed without error and found by meaning's keyword share (the query's words in a page's
// text, docs/api.md): each query finds its own page first, whichever the script, and a page in
// trash never.
func TestSemanticSearch_CJK(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st, envOptions{embedder: embed.Builtin()})
		zh := e.mkPage(t, e.full, wsParent, "项目会议纪要")
		e.appendKids(t, zh, para("下周发布新版本，预算已经批准。"))
		ja := e.mkPage(t, e.full, wsParent, "週次ミーティング")
		e.appendKids(t, ja, para("議事録：来週リリースします。"))
		en := e.mkPage(t, e.full, wsParent, "Meeting notes")
		e.appendKids(t, en, para("We ship the new version next week."))
		gone := e.mkPage(t, e.full, wsParent, "会议纪要（旧）")
		e.appendKids(t, gone, para("旧的会议纪要"))
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+gone, e.full, nil), 200)
		drain(t, e.svc)
		for _, c := range []struct{ query, want string }{
			{"会议纪要", zh},
			{"预算", zh},
			{"議事録", ja},
			{"リリース", ja},
		} {
			got := e.semanticIDs(t, e.full, map[string]any{"query": c.query})
			if len(got) == 0 || got[0] != c.want || slices.Contains(got, gone) {
				t.Errorf("%q: %v, want %s first and never %s", c.query, got, c.want, gone)
			}
		}
	})
}
