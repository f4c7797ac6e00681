package store_test

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestPGRawAwait: a quick read (pgRaw.one: the token, the token joined with a node) that is the
// store's only PostgreSQL read in flight waits for its answer in its thread; with another read
// in flight, or for a read that is not quick, it waits in Go's network poller as before; a
// statement slower than the thread's wait is still read to its end. Every read gets its own
// answer and leaves its connection in step. Fails if the wait is dropped or taken by every
// read (the counts), or if a wait that runs out loses or misreads the answer.
func TestPGRawAwait(t *testing.T) {
	s := testdb.Postgres(t)
	read := func(step string, i int, query string) {
		t.Helper()
		want := step + " " + strconv.Itoa(i)
		var got string
		if _, err := s.PGRawScanForTest(ctx, query, []string{want}, &got); err != nil || got != want {
			t.Errorf("%s: read %d = %q, %v; want %q", step, i, got, err, want)
		}
	}

	before := s.PGRawAwaitedForTest()
	for i := range 20 {
		read("alone", i, `SELECT $1::text`)
	}
	if n := s.PGRawAwaitedForTest() - before; n != 20 {
		t.Fatalf("20 quick reads alone: %d waited in their thread; want 20", n)
	}

	before = s.PGRawAwaitedForTest()
	if _, err := s.PGRawRowsForTest(ctx, `SELECT $1::text`, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if n := s.PGRawAwaitedForTest() - before; n != 0 {
		t.Fatalf("a read that is not quick: %d waited in its thread; want 0", n)
	}

	// A read held in flight for 3 s: the quick reads made meanwhile are not alone.
	var wg sync.WaitGroup
	wg.Go(func() {
		if got, err := s.PGRawRowsForTest(ctx, `SELECT $1::text FROM pg_sleep(3)`, []string{"held"}); err != nil || len(got) != 1 || got[0] != "held" {
			t.Errorf("the held read = %q, %v", got, err)
		}
	})
	deadline := time.Now().Add(5 * time.Second)
	for s.PoolStats()[0].InUse == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	before = s.PGRawAwaitedForTest()
	for i := range 10 {
		read("beside", i, `SELECT $1::text`)
	}
	if s.PoolStats()[0].InUse == 0 {
		t.Fatal("the held read ended before the reads beside it did")
	}
	if n := s.PGRawAwaitedForTest() - before; n != 0 {
		t.Errorf("10 quick reads beside a read in flight: %d waited in their thread; want 0", n)
	}
	wg.Wait()

	// Slower than the thread's wait (1 ms): the wait runs out and the answer is read as before.
	start := time.Now()
	for i := range 3 {
		read("slow", i, `SELECT $1::text FROM pg_sleep(0.02)`)
	}
	if d := time.Since(start); d < 60*time.Millisecond {
		t.Fatalf("three reads of 20 ms took %v", d)
	}
	readsOwn(t, s, "after", 20)
}

// TestPGRawAwait_PageRead: the page GET's joined read (AuthenticateNode with PageFields) made
// one after another, where each waits in its thread on PostgreSQL, answers as before on both
// engines: the page, its absence, and an unknown token.
func TestPGRawAwait_PageRead(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, page, hash := seedAwaitPage(t, s)
		for i := range 30 {
			p, n, err := s.AuthenticateNode(ctx, hash, page, store.PageFields)
			if err != nil || p == nil || n == nil || n.ID != page || n.WorkspaceID != ws || p.Token.WorkspaceID != ws {
				t.Fatalf("read %d of the page: %+v, %+v, %v", i, p, n, err)
			}
			p, n, err = s.AuthenticateNode(ctx, hash, quire.NewID(), store.PageFields)
			if err != nil || p == nil || n != nil {
				t.Fatalf("read %d of an absent page: %+v, %+v, %v; want the token and no node", i, p, n, err)
			}
			if p, n, err := s.AuthenticateNode(ctx, "not-a-hash", page, store.PageFields); err == nil || p != nil || n != nil {
				t.Fatalf("read %d with an unknown token: %+v, %+v, %v; want an error", i, p, n, err)
			}
		}
	})
}

// seedAwaitPage makes a workspace, a page in it and a workspace-scoped token, and returns the
// workspace's id, the page's and the token's secret hash.
func seedAwaitPage(t *testing.T, s *store.Store) (ws, page, hash string) {
	t.Helper()
	w, u := seed(t, s)
	page = quire.NewID()
	insertNode(t, s, w.ID, page, "")
	tok := &quire.Token{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, IntegrationID: quire.NewID(), Name: "await",
		Scopes: []quire.Scope{quire.PagesRead}, WorkspaceScoped: true, CreatedMs: quire.NowMillis()}
	if err := s.CreateToken(ctx, tok, "hash-await"); err != nil {
		t.Fatal(err)
	}
	return w.ID, page, "hash-await"
}
