package httpapi

import (
	"net/http"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestHealth(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		for _, path := range []string{"/healthz", "/readyz"} {
			r := e.do(http.MethodGet, path, "", nil)
			if r.status != 200 || r.body["status"] != "ok" || r.header.Get("X-Request-Id") == "" {
				t.Fatalf("%s: %d %s", path, r.status, r.raw)
			}
			// Only GET: the JSON 405 of every other route.
			e.do(http.MethodPost, path, "", nil).wantError(t, 405, "method_not_allowed", "")
		}
		// A store that stopped answering makes the server unready, but still alive.
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if r := e.do(http.MethodGet, "/readyz", "", nil); r.status != 503 || r.body["status"] != "store unreachable" {
			t.Fatalf("readyz on a closed store: %d %s", r.status, r.raw)
		}
		if r := e.do(http.MethodGet, "/healthz", "", nil); r.status != 200 {
			t.Fatalf("healthz on a closed store: %d %s", r.status, r.raw)
		}
	})
}
