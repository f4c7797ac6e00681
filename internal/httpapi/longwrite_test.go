package httpapi

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestLongWrite_KeepsItsContext holds a page's lock (another server's transaction, say) for
// longer than huma's 5-second body deadline while a PATCH of the page waits for it. The PATCH
// must wait and succeed: the deadline is for reading the body, not for the whole request (it
// used to stay on the connection and cancel the request's context at 5 s: a 500).
func TestLongWrite_KeepsItsContext(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		t.Parallel() // each engine waits out the lock alone
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Before")
		locked, release := make(chan struct{}), make(chan struct{})
		held := make(chan error, 1)
		go func() {
			held <- st.InTx(context.Background(), func(tx *store.Tx) error {
				if err := tx.LockNode(context.Background(), page); err != nil {
					return err
				}
				close(locked)
				<-release
				return nil
			})
		}()
		<-locked
		time.AfterFunc(5500*time.Millisecond, func() { close(release) })
		// Both wait at once: a plain PATCH, and one whose Idempotency-Key makes the body be read
		// (and buffered) before huma reads it again.
		start := time.Now()
		var plain, keyed *response
		var wg sync.WaitGroup
		wg.Go(func() {
			plain = e.do(http.MethodPatch, "/v2/pages/"+page, e.full, map[string]any{"properties": titleOf("Plain")})
		})
		wg.Go(func() {
			keyed = e.do(http.MethodPatch, "/v2/pages/"+page, e.full, map[string]any{"properties": titleOf("Keyed")},
				"Idempotency-Key", "long-write")
		})
		wg.Wait()
		if err := <-held; err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); plain.status != 200 || keyed.status != 200 || took < 5*time.Second {
			t.Fatalf("PATCHes waiting %v for the lock: %d %s; with a key %d %s", took, plain.status, plain.raw, keyed.status, keyed.raw)
		}
	})
}
