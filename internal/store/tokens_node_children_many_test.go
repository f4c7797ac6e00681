package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// childrenCase is one AuthenticateNodeChildren call and what it answered when made alone.
type childrenCase struct {
	name, hash, id string
	after          *store.ChildKey
	limit          int
	want           childrenAnswer
}

// childrenAnswer is what AuthenticateNodeChildren answered, comparable with cmp.
type childrenAnswer struct {
	P      *quire.Principal
	N      *quire.Node
	List   []*quire.Block
	Listed bool
	Err    string
}

func authenticateNodeChildren(ctx context.Context, s *store.Store, c childrenCase) childrenAnswer {
	p, n, list, listed, err := s.AuthenticateNodeChildren(ctx, c.hash, c.id, store.AllFields, c.after, c.limit)
	a := childrenAnswer{P: p, N: n, List: list, Listed: listed}
	if err != nil {
		a.Err = err.Error()
	}
	return a
}

// seedChildrenCases makes a workspace with two pages of children (one trashed child), a page
// out of a granted token's reach, another workspace's page, a workspace-scoped token and a
// granted one, and returns their reads (and an unknown token's) of each page at three sizes,
// from the start and after a key, each answered alone.
func seedChildrenCases(t *testing.T, s *store.Store) []childrenCase {
	t.Helper()
	w, u := seed(t, s)
	w2, _ := seed(t, s)
	page, small, other, elsewhere := quire.NewID(), quire.NewID(), quire.NewID(), quire.NewID()
	insertNode(t, s, w.ID, page, "")
	insertNode(t, s, w.ID, small, page)
	insertNode(t, s, w.ID, other, "")
	insertNode(t, s, w2.ID, elsewhere, "")
	var bs []*quire.Block
	for i := range 40 {
		parent := page
		if i%5 == 4 {
			parent = small
		}
		bs = append(bs, &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: parent, ParentID: parent,
			Position: fmt.Sprintf("p%03d", i), Type: "paragraph", Version: 1, Content: []byte(fmt.Sprintf(`{"rich_text":[],"n":%d}`, i)),
			InTrash: i == 3, CreatedMs: 1_700_000_000_000 + int64(i), CreatedBy: u.ID, EditedMs: 1_700_000_000_000 + int64(i), EditedBy: u.ID})
	}
	mustTx(t, s, func(tx *store.Tx) error { return tx.InsertBlocks(ctx, bs) })
	now := quire.NowMillis()
	for _, tok := range []*quire.Token{
		{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, IntegrationID: quire.NewID(), Name: "s",
			Scopes: []quire.Scope{quire.BlocksRead}, WorkspaceScoped: true, CreatedMs: now},
		{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, IntegrationID: quire.NewID(), Name: "g",
			Scopes: []quire.Scope{quire.BlocksRead}, Grants: []string{page}, CreatedMs: now},
	} {
		if err := s.CreateToken(ctx, tok, "hash-"+tok.Name); err != nil {
			t.Fatal(err)
		}
	}
	var cases []childrenCase
	for _, tok := range []string{"s", "g", "unknown"} {
		for _, n := range []struct{ name, id string }{{"page", page}, {"small", small}, {"other", other},
			{"elsewhere", elsewhere}, {"absent", quire.NewID()}} {
			for _, limit := range []int{1, 11, 101} {
				for _, after := range []*store.ChildKey{nil, {Position: bs[10].Position, ID: bs[10].ID}} {
					c := childrenCase{name: fmt.Sprintf("%s/%s/%d/after %v", tok, n.name, limit, after != nil),
						hash: "hash-" + tok, id: n.id, limit: limit, after: after}
					c.want = authenticateNodeChildren(ctx, s, c)
					cases = append(cases, c)
				}
			}
		}
	}
	return cases
}

// TestAuthenticateNodeChildren_Together: reads of tokens, nodes and first pages of children
// made at the same time (on PostgreSQL they share round trips, a listing asked for by several
// read once) each get the answer the same read gets alone, with blocks of their own; then
// reads whose contexts end at random moments: the others still get their own answers, none
// is left waiting, and a read made afterwards is answered.
func TestAuthenticateNodeChildren_Together(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		cases := seedChildrenCases(t, s)
		listed := 0
		for _, c := range cases {
			if len(c.want.List) > 0 {
				listed++
			}
		}
		if pg := s.Engine() == store.Postgres; pg && (listed < 12 || listed == len(cases)) || !pg && listed != 0 {
			t.Fatalf("%d of %d cases list children; the cases do not tell answers apart", listed, len(cases))
		}
		for round := range 4 {
			var wg sync.WaitGroup
			start := make(chan struct{})
			got := make([]childrenAnswer, 3*len(cases))
			for i := range got {
				c := cases[(i*7+round)%len(cases)]
				wg.Go(func() {
					<-start
					got[i] = authenticateNodeChildren(ctx, s, c)
					if diff := cmp.Diff(c.want, got[i]); diff != "" {
						t.Errorf("round %d, %s (-alone +together):\n%s", round, c.name, diff)
					}
				})
			}
			close(start)
			waitGroup(t, &wg, "the reads made together")
			owner := map[*quire.Block]int{}
			for i, a := range got {
				for _, b := range a.List {
					if j, ok := owner[b]; ok && j != i {
						t.Fatalf("round %d: reads %d and %d were given the same block %s", round, j, i, b.ID)
					}
					owner[b] = i
				}
			}
		}

		var wg sync.WaitGroup
		for i := range 300 {
			c := cases[i%len(cases)]
			wg.Go(func() {
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				cancelled := i%3 == 0
				if cancelled {
					time.AfterFunc(time.Duration(rand.IntN(400))*time.Microsecond, cancel)
				}
				got := authenticateNodeChildren(ctx, s, c)
				if cancelled && got.Err != "" && ctx.Err() != nil {
					return // its own context ended: a dial, a wait or a read broken off
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("%s among cancelled reads (cancelled %v) (-alone +together):\n%s", c.name, cancelled, diff)
				}
			})
		}
		waitGroup(t, &wg, "the reads among cancelled ones")
		if n := s.ChildrenLanesForTest(); n != 0 {
			t.Errorf("%d listings keep a lane after every read was answered", n)
		}
		done := make(chan childrenAnswer)
		go func() { done <- authenticateNodeChildren(ctx, s, cases[0]) }()
		select {
		case got := <-done:
			if diff := cmp.Diff(cases[0].want, got); diff != "" {
				t.Errorf("a read after the cancelled ones (-want +got):\n%s", diff)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a read after the cancelled ones is not answered: the lane was not handed on")
		}
	})
}

// TestAuthenticateNodeChildren_OneRoundTrip (PostgreSQL): while a read of a listing is in
// flight (held by a lock on nodes), the reads of the same listing asked for meanwhile wait and
// then go together: one joined read over arrays and the listing read once, each read's answer
// its answer alone (tokens of every kind mixed). A read of another listing, or of a page after
// a cursor, does not wait for that lane: it is sent at once.
func TestAuthenticateNodeChildren_OneRoundTrip(t *testing.T) {
	s, db, taken := observedPostgres(t)
	cases := seedChildrenCases(t, s)
	var same []childrenCase // one listing, read with every token
	var other, later childrenCase
	for _, c := range cases {
		switch {
		case strings.HasSuffix(c.name, "/page/11/after false"):
			same = append(same, c)
		case c.name == "s/small/11/after false":
			other = c
		case c.name == "s/page/11/after true":
			later = c
		}
	}
	if len(same) != 3 || other.id == "" || later.id == "" {
		t.Fatalf("cases: %d of one listing, another %q, after a cursor %q", len(same), other.name, later.name)
	}
	taken()
	release := holdNodes(t, db)
	held := make(chan childrenAnswer)
	go func() { held <- authenticateNodeChildren(ctx, s, same[0]) }()
	waitFor(t, "the first read to wait for the lock", func() bool { return lockWaits(t, db)() == 1 })
	got := make([]childrenAnswer, 12)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = authenticateNodeChildren(ctx, s, same[i%len(same)]) })
	}
	waitFor(t, "every read of the listing to wait", func() bool {
		return s.ChildrenWaitingForTest(store.AllFields, same[0].id, same[0].limit) == len(got)
	})
	apart := []childrenCase{other, later}
	answers := make([]chan childrenAnswer, len(apart))
	for i, c := range apart {
		answers[i] = make(chan childrenAnswer, 1)
		go func() { answers[i] <- authenticateNodeChildren(ctx, s, c) }()
	}
	waitFor(t, "another listing and a cursor's page to be sent", func() bool { return lockWaits(t, db)() == 3 })
	release()
	waitGroup(t, &wg, "the reads that waited")
	<-held
	for i, c := range apart {
		if diff := cmp.Diff(c.want, <-answers[i]); diff != "" {
			t.Errorf("%s, sent beside the lane (-alone +got):\n%s", c.name, diff)
		}
	}
	many, listings := 0, 0
	for _, q := range taken() {
		switch q {
		case store.JoinedManyQueryForTest(store.AllFields):
			many++
		case store.ChildrenFirstQueryForTest:
			listings++
		}
	}
	// The held read's, the waiting reads' (once), the other listing's.
	if many != 1 || listings != 3 {
		t.Errorf("%d joined reads over arrays and %d first-page listings for one held read, %d that waited and another listing; want 1 and 3",
			many, listings, len(got))
	}
	for i, a := range got {
		c := same[i%len(same)]
		if diff := cmp.Diff(c.want, a); diff != "" {
			t.Errorf("%s (-alone +together):\n%s", c.name, diff)
		}
	}
	if n := s.ChildrenLanesForTest(); n != 0 {
		t.Errorf("%d listings keep a lane after every read was answered", n)
	}
}
