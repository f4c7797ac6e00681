package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestMetrics_StorePools(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		s := e.scrape(t)
		pools := map[store.Engine][]string{store.SQLite: {"read", "write"}, store.Postgres: {"main"}}[st.Engine()]
		for _, pool := range pools {
			l := []string{"engine", string(st.Engine()), "pool", pool}
			for _, name := range []string{"quire_db_max_open_connections", "quire_db_open_connections", "quire_db_in_use_connections",
				"quire_db_idle_connections", "quire_db_wait_count_total", "quire_db_wait_duration_seconds_total"} {
				if s.metric(name, l...) == nil {
					t.Errorf("no %s%v", name, l)
				}
			}
			open := s.metric("quire_db_open_connections", l...).GetGauge().GetValue()
			inUse := s.metric("quire_db_in_use_connections", l...).GetGauge().GetValue()
			idle := s.metric("quire_db_idle_connections", l...).GetGauge().GetValue()
			// Both pools served the setup (the workspace write, the token reads), and the
			// connections they keep are idle between requests.
			if open < 1 || open != inUse+idle || open > s.metric("quire_db_max_open_connections", l...).GetGauge().GetValue() {
				t.Errorf("pool %s: %v open, %v in use, %v idle", pool, open, inUse, idle)
			}
		}
		if st.Engine() == store.SQLite {
			if w := s.metric("quire_db_max_open_connections", "pool", "write").GetGauge().GetValue(); w != 1 {
				t.Errorf("SQLite write pool allows %v connections, want the single writer", w)
			}
		}
		if n := len(s["quire_db_open_connections"].GetMetric()); n != len(pools) {
			t.Errorf("%d pools reported, want %v", n, pools)
		}
		// The Go runtime and the process are there too.
		for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total",
			"process_resident_memory_bytes", "go_build_info", "quire_rate_limited_requests_total"} {
			if s[name] == nil {
				t.Errorf("no %s", name)
			}
		}
	})
}

func TestMetrics_EmbedQueue(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		// No indexer runs in the test server: written text waits in the queue until drain.
		e := newEnv(t, st)
		depth := func(s scrape) (due, waiting float64) {
			return s.metric("quire_embed_queue_depth", "state", "due").GetGauge().GetValue(),
				s.metric("quire_embed_queue_depth", "state", "waiting").GetGauge().GetValue()
		}
		s0 := e.scrape(t)
		due0, waiting0 := depth(s0)
		page := e.mkPage(t, e.full, wsParent, "Volcano notes")
		e.appendKids(t, page, para("Basalt flows cool into columns."))
		s1 := e.scrape(t)
		if due, waiting := depth(s1); due != due0+1 || waiting != waiting0 {
			t.Fatalf("after writing a page: due %v → %v, waiting %v → %v; want one more due", due0, due, waiting0, waiting)
		}
		drain(t, e.svc)
		s2 := e.scrape(t)
		if due, waiting := depth(s2); due != 0 || waiting != 0 {
			t.Fatalf("after draining: due %v, waiting %v", due, waiting)
		}
		nodes := s2.counter("quire_embed_nodes_total") - s1.counter("quire_embed_nodes_total")
		chunks := s2.counter("quire_embed_chunks_total") - s1.counter("quire_embed_chunks_total")
		if nodes != due0+1 || chunks < 2*nodes || s2.counter("quire_embed_failures_total") != 0 {
			t.Fatalf("indexer counters: %v nodes, %v chunks (title and text), %v failures", nodes, chunks, s2.counter("quire_embed_failures_total"))
		}

		// An embeddings service that refuses: the attempt counts as a failure and the node waits
		// out its backoff, no longer due.
		refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"message":"no such model"}}`, http.StatusBadRequest)
		}))
		t.Cleanup(refuse.Close)
		bad := newEnv(t, st, envOptions{embedder: embed.OpenAI(refuse.URL, "missing", "", refuse.Client())})
		bad.mkPage(t, bad.full, wsParent, "Unembeddable")
		drain(t, bad.svc)
		s3 := bad.scrape(t)
		if due, waiting := depth(s3); due != 0 || waiting != 1 {
			t.Fatalf("after a failed attempt: due %v, waiting %v; want 0 and 1", due, waiting)
		}
		if f, n := s3.counter("quire_embed_failures_total"), s3.counter("quire_embed_nodes_total"); f != 1 || n != 0 {
			t.Fatalf("after a failed attempt: %v failures, %v nodes embedded", f, n)
		}
	})
}

// A store that stopped answering leaves its queue depth out of the scrape; the rest is served.
func TestMetrics_StoreDown(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		wantOK(t, e.do(http.MethodGet, "/v2/users/me", e.full, nil), 200)
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		s := e.scrape(t)
		if n, _ := s.requests("GET /v2/users/me", 200); n != 1 || s["quire_db_open_connections"] == nil {
			t.Fatalf("scrape of a server whose store is down lacks what it knows: %v", s.routes())
		}
		if s["quire_embed_queue_depth"] != nil {
			t.Fatal("queue depth reported from a closed store")
		}
		// Counted after the answer is gathered, so the next scrape shows this one's error.
		if n := e.scrape(t).counter("promhttp_metric_handler_errors_total", "cause", "gathering"); n != 1 {
			t.Fatalf("scrape errors counted: %v, want 1", n)
		}
	})
}
