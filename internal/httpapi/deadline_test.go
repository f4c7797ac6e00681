package httpapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestBodyReadDeadline_Released: huma bounds the reading of a body with a connection read
// deadline (BodyReadTimeout, 5 s by default). A request still working after that deadline has
// passed, its body long read (waiting behind a lock under load), must keep its context: it
// answered 500 when net/http's watch for a departed client hit the stale deadline.
func TestBodyReadDeadline_Released(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		const deadline = 250 * time.Millisecond // long enough for a loaded machine to read the body in time
		slow := func(s *Server) {
			register(s, huma.Operation{OperationID: "probe-slow", Method: http.MethodPatch, Path: "/v2/probe/slow",
				Summary: "Probe: a write that outlives its body read deadline", BodyReadTimeout: deadline},
				route{}, func(ctx context.Context, in *probeVersionInput) (*probeVersionOutput, error) {
					time.Sleep(2 * deadline)
					if err := ctx.Err(); err != nil {
						return nil, err
					}
					out := &probeVersionOutput{ETag: etag(1)}
					out.Body.Note = in.Body.Note
					return out, nil
				})
		}
		e := newEnv(t, st, envOptions{extra: []func(*Server){slow}})
		for _, key := range []string{"", "slow-1"} { // the idempotent path reads the body first
			r := e.do(http.MethodPatch, "/v2/probe/slow", e.full, map[string]any{"note": "late"}, "Idempotency-Key", key)
			if r.status != http.StatusOK || r.body["note"] != "late" {
				t.Fatalf("key %q: %d %s", key, r.status, r.raw)
			}
		}
	})
}
