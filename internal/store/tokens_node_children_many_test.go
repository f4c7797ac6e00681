package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
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
		if n := s.ChildrenWaitingForTest(store.AllFields); n != 0 {
			t.Errorf("%d reads still wait", n)
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

// TestAuthenticateNodeChildren_OneRoundTrip (PostgreSQL): while one read is in flight (held by
// a lock on nodes), the first-page reads asked for meanwhile wait and then go together: one
// statement over arrays of listings, each distinct listing once, and each read's answer its
// answer alone; a page after a cursor is read alone and does not wait.
func TestAuthenticateNodeChildren_OneRoundTrip(t *testing.T) {
	s, db, taken := observedPostgres(t)
	cases := seedChildrenCases(t, s)
	var first, later []childrenCase
	for _, c := range cases {
		if c.after == nil {
			first = append(first, c)
		} else {
			later = append(later, c)
		}
	}
	taken()
	release := holdNodes(t, db)
	held := make(chan childrenAnswer)
	go func() { held <- authenticateNodeChildren(ctx, s, first[0]) }()
	waitFor(t, "the first read to wait for the lock", func() bool { return lockWaits(t, db)() == 1 })
	got := make([]childrenAnswer, 2*len(first))
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = authenticateNodeChildren(ctx, s, first[i%len(first)]) })
	}
	waitFor(t, "every read to wait", func() bool { return s.ChildrenWaitingForTest(store.AllFields) == len(got) })
	alone := make(chan childrenAnswer)
	go func() { alone <- authenticateNodeChildren(ctx, s, later[0]) }()
	waitFor(t, "the read after a cursor to be sent", func() bool { return lockWaits(t, db)() == 2 })
	release()
	waitGroup(t, &wg, "the reads that waited")
	<-held
	if diff := cmp.Diff(later[0].want, <-alone); diff != "" {
		t.Errorf("%s (-alone +sent beside):\n%s", later[0].name, diff)
	}
	many := 0
	for _, q := range taken() {
		if q == store.ChildrenManyQueryForTest {
			many++
		}
	}
	if many != 1 {
		t.Errorf("%d statements over arrays of listings for %d reads that waited together; want 1", many, len(got))
	}
	for i, a := range got {
		c := first[i%len(first)]
		if diff := cmp.Diff(c.want, a); diff != "" {
			t.Errorf("%s (-alone +together):\n%s", c.name, diff)
		}
	}
}

// TestChildrenMany_Plan (PostgreSQL): the listings over arrays are a nested loop over the
// arrays whose inner side is childrenFirst's plan for one node: a limit over the
// blocks_children index, no sort, no scan of the table, custom or generic.
func TestChildrenMany_Plan(t *testing.T) {
	s := testdb.Postgres(t)
	seedPlanShapes(t, s)
	for _, generic := range []bool{false, true} {
		text, err := s.PlanForTest(ctx, generic, store.ChildrenManyQueryForTest, "{n1999,n5,n0}", "{101,11,101}")
		if err != nil {
			t.Fatal(err)
		}
		var doc []struct{ Plan pgPlan }
		if err := json.Unmarshal([]byte(text), &doc); err != nil || len(doc) != 1 {
			t.Fatalf("%v\n%s", err, text)
		}
		p := doc[0].Plan
		if p.NodeType != "Nested Loop" || len(p.Plans) != 2 || p.Plans[0].NodeType != "Function Scan" {
			t.Fatalf("generic %v: the plan is not a nested loop over the arrays:\n%s", generic, text)
		}
		inner := p.Plans[1]
		if inner.NodeType != "Limit" || len(inner.Plans) != 1 || inner.Plans[0].NodeType != "Index Scan" ||
			inner.Plans[0].IndexName != "blocks_children" {
			t.Errorf("generic %v: a listing is not a limit over the blocks_children index:\n%s", generic, text)
		}
	}
}
