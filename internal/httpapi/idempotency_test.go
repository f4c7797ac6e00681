package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestIdempotency(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st, envOptions{extra: []func(*Server){withProbes}})
		body := map[string]any{"name": "Cy", "email": "cy@example.com"}
		first := e.do("POST", "/v2/probe/users", e.full, body, "Idempotency-Key", "k1")
		if first.status != 201 || first.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("first: %d %s", first.status, first.raw)
		}
		again := e.do("POST", "/v2/probe/users", e.full, body, "Idempotency-Key", "k1")
		if again.status != 201 || !bytes.Equal(again.raw, first.raw) || again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("repeat: %d replayed=%q %s", again.status, again.header.Get("Idempotent-Replayed"), again.raw)
		}
		if again.header.Get("Content-Type") != "application/json" {
			t.Errorf("replayed Content-Type = %q", again.header.Get("Content-Type"))
		}
		if n := e.userCount(); n != 2 {
			t.Fatalf("users = %d, want 2 (owner + one created)", n)
		}
		// Same key, different body.
		e.do("POST", "/v2/probe/users", e.full, map[string]any{"name": "Cy", "email": "other@example.com"}, "Idempotency-Key", "k1").
			wantError(t, 409, quire.CodeIdempotencyConflict, "")
		// Same key, other token: an independent key space.
		other := e.token(quire.AllScopes, true)
		r := e.do("POST", "/v2/probe/users", other, map[string]any{"name": "Di", "email": "di@example.com"}, "Idempotency-Key", "k1")
		if r.status != 201 {
			t.Fatalf("other token, same key: %d %s", r.status, r.raw)
		}
		// A rejected request is replayed as rejected, and still writes nothing.
		bad := map[string]any{"name": "Ed", "email": "nope"}
		b1 := e.do("POST", "/v2/probe/users", e.full, bad, "Idempotency-Key", "k2")
		b2 := e.do("POST", "/v2/probe/users", e.full, bad, "Idempotency-Key", "k2")
		b1.wantError(t, 400, quire.CodeValidation, "email")
		if b2.status != 400 || b2.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("rejected repeat: %d replayed=%q", b2.status, b2.header.Get("Idempotent-Replayed"))
		}
		// The replayed error is the first one, X-Request-Id included (it differed from the
		// body's request_id; found by FuzzServer).
		checkErrorShape(t, b2)
		if !bytes.Equal(b2.raw, b1.raw) || b2.header.Get("X-Request-Id") != b1.header.Get("X-Request-Id") {
			t.Fatalf("replayed error %s (X-Request-Id %s), first %s", b2.raw, b2.header.Get("X-Request-Id"), b1.raw)
		}
		if n := e.userCount(); n != 3 {
			t.Fatalf("users = %d, want 3", n)
		}
		// A key longer than 255 characters is refused.
		e.do("POST", "/v2/probe/users", e.full, body, "Idempotency-Key", string(bytes.Repeat([]byte("k"), 256))).
			wantError(t, 400, quire.CodeValidation, "Idempotency-Key")
		// So is one that is not UTF-8 (PostgreSQL answered 500; found by TestServerProperty),
		// and nothing is written.
		e.do("POST", "/v2/probe/users", e.full, map[string]any{"name": "Fe", "email": "fe@example.com"}, "Idempotency-Key", "k\xff\xfe").
			wantError(t, 400, quire.CodeValidation, "Idempotency-Key")
		if n := e.userCount(); n != 3 {
			t.Fatalf("users = %d, want 3", n)
		}
		// A key in another script is UTF-8 and taken.
		if r := e.do("POST", "/v2/probe/users", e.full, map[string]any{"name": "Gi", "email": "gi@example.com"}, "Idempotency-Key", "ключ"); r.status != 201 {
			t.Fatalf("UTF-8 key: %d %s", r.status, r.raw)
		}
	})
}

// TestIdempotency_Concurrent sends the same request with one key from many clients at once:
// exactly one effect, and every answer is the same.
func TestIdempotency_Concurrent(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st, envOptions{extra: []func(*Server){withProbes}})
		for round := range 3 {
			key := fmt.Sprintf("race-%d", round)
			body := map[string]any{"name": "Racer", "email": key + "@example.com"}
			const n = 12
			answers := make([]*response, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					answers[i] = e.do("POST", "/v2/probe/users", e.full, body, "Idempotency-Key", key)
				}()
			}
			wg.Wait()
			fresh := 0
			for _, a := range answers {
				if a.status != 201 {
					t.Fatalf("round %d: status %d %s", round, a.status, a.raw)
				}
				if !bytes.Equal(a.raw, answers[0].raw) {
					t.Fatalf("round %d: answers differ:\n%s\n%s", round, a.raw, answers[0].raw)
				}
				if a.header.Get("Idempotent-Replayed") == "" {
					fresh++
				}
			}
			if fresh != 1 {
				t.Fatalf("round %d: %d answers not replayed, want 1", round, fresh)
			}
		}
		if got := e.userCount(); got != 4 {
			t.Fatalf("users = %d, want 4 (owner + 3 rounds)", got)
		}
	})
}

// TestIdempotency_AcrossServers replays through a second server on the same store, as after a
// restart or on another server sharing one PostgreSQL.
func TestIdempotency_AcrossServers(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		a := newEnv(t, st, envOptions{extra: []func(*Server){withProbes}})
		b := newEnv(t, st, envOptions{extra: []func(*Server){withProbes}})
		body := map[string]any{"name": "Fay", "email": "fay@example.com"}
		first := a.do("POST", "/v2/probe/users", a.full, body, "Idempotency-Key", "kx")
		b.full = a.full // the same token, sent to the other server
		again := b.do("POST", "/v2/probe/users", b.full, body, "Idempotency-Key", "kx")
		if first.status != 201 || again.status != 201 || !bytes.Equal(first.raw, again.raw) || again.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("across servers: %d then %d (replayed=%q)", first.status, again.status, again.header.Get("Idempotent-Replayed"))
		}
	})
}

// TestIdempotency_CommitMarksClaim checks the guarantee behind exactly-once: a claim that was
// taken over meanwhile makes the first request's transaction roll back.
func TestIdempotency_CommitMarksClaim(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		now := quire.NowMillis()
		claim, _, err := st.ClaimIdempotency(ctx, "tok", "k", "h", now-120_000, 0, 0)
		if err != nil || claim == nil {
			t.Fatalf("claim: %v %v", claim, err)
		}
		// A retry finds the claim abandoned (older than the lease) and takes it over.
		takeover, _, err := st.ClaimIdempotency(ctx, "tok", "k", "h", now, now-60_000, now-86_400_000)
		if err != nil || takeover == nil {
			t.Fatalf("takeover: %v %v", takeover, err)
		}
		// The first request's write now fails and leaves nothing behind.
		w := &quire.Workspace{ID: quire.NewID(), Name: "late", CreatedMs: now}
		err = st.CreateWorkspace(store.WithIdempotencyClaim(ctx, claim), w)
		if !quire.IsCode(err, quire.CodeIdempotencyConflict) {
			t.Fatalf("write under a lost claim: %v, want idempotency_conflict", err)
		}
		if _, err := st.Workspace(ctx, w.ID); !quire.IsCode(err, quire.CodeNotFound) {
			t.Fatalf("the rolled-back write is visible: %v", err)
		}
		// The new owner's write goes through and marks the claim committed.
		if err := st.CreateWorkspace(store.WithIdempotencyClaim(ctx, takeover), w); err != nil {
			t.Fatal(err)
		}
		rec, err := st.IdempotencyRecord(ctx, "tok", "k")
		if err != nil || rec.State != store.IdemCommitted {
			t.Fatalf("record = %+v, %v; want committed", rec, err)
		}
	})
}
