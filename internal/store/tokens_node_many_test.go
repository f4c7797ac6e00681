package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
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

// joinedCase is one AuthenticateNode call and what it answered when made alone.
type joinedCase struct {
	name, hash, id string
	fields         store.NodeFields
	want           joinedAnswer
}

// joinedAnswer is what AuthenticateNode answered, comparable with cmp.
type joinedAnswer struct {
	P   *quire.Principal
	N   *quire.Node
	Err string
}

func authenticateNode(ctx context.Context, s *store.Store, c joinedCase) joinedAnswer {
	p, n, err := s.AuthenticateNode(ctx, c.hash, c.id, c.fields)
	a := joinedAnswer{P: p, N: n}
	if err != nil {
		a.Err = err.Error()
	}
	return a
}

// seedJoinedCases makes two workspaces, pages (one trashed, one beneath a granted page), a
// workspace-scoped token, a granted token, a revoked one and an unknown hash, and returns
// their reads of each page with PageFields and AllFields, each answered alone.
func seedJoinedCases(t *testing.T, s *store.Store) (cases []joinedCase, tokens map[string]string) {
	t.Helper()
	w, u := seed(t, s)
	w2, u2 := seed(t, s)
	top, page, trashed, other, elsewhere := quire.NewID(), quire.NewID(), quire.NewID(), quire.NewID(), quire.NewID()
	insertNode(t, s, w.ID, top, "")
	insertNode(t, s, w.ID, page, top)
	insertNode(t, s, w.ID, trashed, top)
	insertNode(t, s, w.ID, other, "")
	insertNode(t, s, w2.ID, elsewhere, "")
	if err := s.InTx(ctx, func(tx *store.Tx) error {
		return tx.ExecForTest(ctx, `UPDATE nodes SET in_trash = TRUE WHERE id = $1`, trashed)
	}); err != nil {
		t.Fatal(err)
	}
	now := quire.NowMillis()
	tokens = map[string]string{}
	for _, tok := range []*quire.Token{
		{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, Name: "scoped", Scopes: []quire.Scope{quire.PagesRead}, WorkspaceScoped: true, CreatedMs: now},
		{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, Name: "granted", Scopes: []quire.Scope{quire.PagesRead}, Grants: []string{top}, CreatedMs: now},
		{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, Name: "revoked", Scopes: []quire.Scope{quire.PagesRead}, WorkspaceScoped: true, CreatedMs: now},
		{ID: quire.NewID(), WorkspaceID: w2.ID, OwnerID: u2.ID, Name: "other", Scopes: []quire.Scope{quire.PagesRead}, WorkspaceScoped: true, CreatedMs: now},
	} {
		if err := s.CreateToken(ctx, tok, "hash-"+tok.Name); err != nil {
			t.Fatal(err)
		}
		tokens[tok.Name] = tok.ID
	}
	if err := s.Revoke(ctx, tokens["revoked"]); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name   string
		fields store.NodeFields
	}{{"page", store.PageFields}, {"all", store.AllFields}} {
		for _, tok := range []string{"scoped", "granted", "revoked", "other", "unknown"} {
			for _, n := range []struct{ name, id string }{{"page", page}, {"trashed", trashed}, {"top", top},
				{"other", other}, {"elsewhere", elsewhere}, {"absent", quire.NewID()}} {
				c := joinedCase{name: f.name + "/" + tok + "/" + n.name, hash: "hash-" + tok, id: n.id, fields: f.fields}
				c.want = authenticateNode(ctx, s, c)
				cases = append(cases, c)
			}
		}
	}
	return cases, tokens
}

// TestAuthenticateNode_Together: reads made at the same time (on PostgreSQL they share round
// trips) each get the answer the same read gets alone: a workspace-scoped token, a granted
// one within and out of its reach, a revoked token, an unknown one, a trashed page, another
// workspace's node, an absent id; with PageFields and AllFields mixed. Then reads whose
// contexts end at random moments: each of the others still gets its own answer, and reads
// made afterwards are answered at once.
func TestAuthenticateNode_Together(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		cases, _ := seedJoinedCases(t, s)
		found := 0
		for _, c := range cases {
			if c.want.N != nil {
				found++
			}
		}
		if found < 8 || found == len(cases) {
			t.Fatalf("%d of %d cases find their node; the cases do not tell answers apart", found, len(cases))
		}
		for round := range 5 {
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range 3 * len(cases) {
				c := cases[(i*7+round)%len(cases)]
				wg.Go(func() {
					<-start
					if diff := cmp.Diff(c.want, authenticateNode(ctx, s, c)); diff != "" {
						t.Errorf("round %d, %s (-alone +together):\n%s", round, c.name, diff)
					}
				})
			}
			close(start)
			waitGroup(t, &wg, "the reads made together")
		}

		var wg sync.WaitGroup
		for i := range 400 {
			c := cases[i%len(cases)]
			wg.Go(func() {
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				cancelled := i%3 == 0
				if cancelled {
					time.AfterFunc(time.Duration(rand.IntN(400))*time.Microsecond, cancel)
				}
				got := authenticateNode(ctx, s, c)
				if cancelled && strings.Contains(got.Err, context.Canceled.Error()) {
					return
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("%s among cancelled reads (cancelled %v) (-alone +together):\n%s", c.name, cancelled, diff)
				}
			})
		}
		waitGroup(t, &wg, "the reads among cancelled ones")
		if n := s.JoinedWaitingForTest(store.PageFields); n != 0 {
			t.Errorf("%d reads still wait", n)
		}
		done := make(chan joinedAnswer)
		go func() { done <- authenticateNode(ctx, s, cases[0]) }()
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

// waitGroup waits for wg, or fails the test after 30 s: a read that is never answered (a lane
// not handed on) must fail the test, not hang it.
func waitGroup(t *testing.T, wg *sync.WaitGroup, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s were not all answered", what)
	}
}

// observedPostgres opens a store on a fresh PostgreSQL database whose statements are recorded,
// and a plain pool on the same database.
func observedPostgres(t *testing.T) (*store.Store, *sql.DB, func() []string) {
	t.Helper()
	url := testdb.PostgresURL(t)
	var mu sync.Mutex
	var seen []string
	s, err := store.Open(ctx, store.Config{DatabaseURL: url, Observe: func(q string) {
		mu.Lock()
		seen = append(seen, q)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	taken := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := seen
		seen = nil
		return out
	}
	return s, openPostgres(t, url), taken
}

// holdNodes locks the nodes table against every read until the returned func is called.
func holdNodes(t *testing.T, db *sql.DB) (release func()) {
	t.Helper()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `LOCK TABLE nodes IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := tx.Commit(); err != nil {
			t.Error(err)
		}
	}
}

// waitFor polls cond until it holds, or fails the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// lockWaits is how many backends of db's database wait for a lock.
func lockWaits(t *testing.T, db *sql.DB) func() int {
	return func() int {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// TestAuthenticateNode_OneRoundTrip (PostgreSQL): while one joined read is in flight (held by
// a lock on nodes), the reads asked for meanwhile wait and then go together as one statement;
// each gets the answer it gets alone, except that a token revoked while they waited is refused
// by every read of it asked for after the revoke: nothing is answered from a round trip sent
// before the read was asked for.
func TestAuthenticateNode_OneRoundTrip(t *testing.T) {
	s, db, taken := observedPostgres(t)
	cases, tokens := seedJoinedCases(t, s)
	var page []joinedCase
	for _, c := range cases {
		if c.fields == store.PageFields {
			page = append(page, c)
		}
	}
	taken()

	release := holdNodes(t, db)
	first := make(chan joinedAnswer)
	go func() { first <- authenticateNode(ctx, s, page[0]) }()
	waitFor(t, "the first read to wait for the lock", func() bool { return lockWaits(t, db)() == 1 })
	if err := s.Revoke(ctx, tokens["scoped"]); err != nil {
		t.Fatal(err)
	}
	got := make([]joinedAnswer, len(page))
	var wg sync.WaitGroup
	for i, c := range page {
		wg.Go(func() { got[i] = authenticateNode(ctx, s, c) })
	}
	waitFor(t, "every read to wait", func() bool { return s.JoinedWaitingForTest(store.PageFields) == len(page) })
	release()
	waitGroup(t, &wg, "the reads that waited")
	<-first
	many := 0
	for _, q := range taken() {
		if q == store.JoinedManyQueryForTest(store.PageFields) {
			many++
		}
	}
	if many != 1 {
		t.Errorf("%d statements over arrays for %d reads that waited together; want 1", many, len(page))
	}
	revoked := 0
	for i, c := range page {
		want := c.want
		if strings.HasPrefix(c.name, "page/scoped/") {
			want = authenticateNode(ctx, s, c) // after the revoke
			if want.Err == "" || c.want.Err != "" {
				t.Fatalf("%s: the revoke changed nothing: %+v, then %+v", c.name, c.want, want)
			}
			revoked++
		}
		if diff := cmp.Diff(want, got[i]); diff != "" {
			t.Errorf("%s (-alone +together):\n%s", c.name, diff)
		}
	}
	if revoked == 0 {
		t.Fatal("no read of the revoked token")
	}
}

// TestAuthenticateNode_Cancelled (PostgreSQL): a read whose request ends while it waits
// leaves at once; the sender of a round trip whose request ends leaves at once too, and the
// reads it carried for others are asked again rather than failed; every other read gets its
// own answer once the lock is released.
func TestAuthenticateNode_Cancelled(t *testing.T) {
	s, db, _ := observedPostgres(t)
	cases, _ := seedJoinedCases(t, s)
	release := holdNodes(t, db)
	defer func() {
		if release != nil {
			release()
		}
	}()
	type call struct {
		c      joinedCase
		cancel context.CancelFunc
		done   chan joinedAnswer
	}
	start := func(c joinedCase) *call {
		ctx, cancel := context.WithCancel(ctx)
		k := &call{c: c, cancel: cancel, done: make(chan joinedAnswer, 1)}
		go func() { k.done <- authenticateNode(ctx, s, c) }()
		return k
	}
	left := func(k *call, who string) {
		t.Helper()
		k.cancel()
		select {
		case a := <-k.done:
			if !strings.Contains(a.Err, context.Canceled.Error()) {
				t.Errorf("%s, cancelled: %+v; want the context's error", who, a)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s, cancelled, did not leave", who)
		}
	}
	sender := start(cases[0])
	waitFor(t, "the first read to wait for the lock", func() bool { return lockWaits(t, db)() == 1 })
	queued := start(cases[1])
	waitFor(t, "a waiting read", func() bool { return s.JoinedWaitingForTest(cases[1].fields) == 1 })
	carrier := start(cases[2])
	waitFor(t, "two waiting reads", func() bool { return s.JoinedWaitingForTest(cases[1].fields) == 2 })
	var rest []*call
	for _, c := range cases[3:9] {
		rest = append(rest, start(c))
	}
	waitFor(t, "eight waiting reads", func() bool { return s.JoinedWaitingForTest(cases[1].fields) == 8 })
	left(queued, "a waiting read")
	if n := s.JoinedWaitingForTest(cases[1].fields); n != 7 {
		t.Fatalf("%d reads wait after one left; want 7", n)
	}

	// Hold nodes again behind the first read, so that the next round trip (carrier's, with
	// the rest) waits too once the first read is through.
	again, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	lockedAgain := make(chan error, 1)
	go func() {
		_, err := again.ExecContext(ctx, `LOCK TABLE nodes IN ACCESS EXCLUSIVE MODE`)
		lockedAgain <- err
	}()
	waitFor(t, "the second lock to queue", func() bool { return lockWaits(t, db)() == 2 })
	release()
	release = nil
	if diff := cmp.Diff(cases[0].want, <-sender.done); diff != "" {
		t.Errorf("the first read (-alone +got):\n%s", diff)
	}
	if err := <-lockedAgain; err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the carrier's round trip to wait for the lock", func() bool {
		return lockWaits(t, db)() == 1 && s.JoinedWaitingForTest(cases[1].fields) == 0
	})
	left(carrier, "the sender of a round trip")
	waitFor(t, "the carried reads to be asked again", func() bool { return s.JoinedWaitingForTest(cases[1].fields) == 5 })
	if err := again.Commit(); err != nil {
		t.Fatal(err)
	}
	for i, k := range rest {
		select {
		case a := <-k.done:
			if diff := cmp.Diff(k.c.want, a); diff != "" {
				t.Errorf("carried read %d, %s (-alone +got):\n%s", i, k.c.name, diff)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("carried read %d was not answered", i)
		}
	}
}

// TestJoinedMany_Plan (PostgreSQL) pins the plan of the joined read of several tokens and nodes
// in one statement, custom and generic: a nested loop over the arrays' rows whose inner side,
// run once a pair, is the single read's plan node for node (its token on the unique index of
// secret hashes, its node on the nodes' primary key, no recursive walk: the reach check is
// quire_token_reaches), with no scan of a table and no hash join anywhere.
func TestJoinedMany_Plan(t *testing.T) {
	s := testdb.Postgres(t)
	seedPlanShapes(t, s)
	shape := func(p pgPlan) []string {
		var out []string
		var walk func(p pgPlan)
		walk = func(p pgPlan) {
			switch p.NodeType {
			case "Seq Scan", "Hash Join", "Hash", "Recursive Union", "CTE Scan", "Bitmap Heap Scan":
				t.Errorf("the plan has a %s %s", p.NodeType, p.RelationName)
			}
			if p.NodeType != "Subquery Scan" {
				out = append(out, strings.TrimSpace(p.NodeType+" "+p.RelationName+" "+p.IndexName))
			}
			for _, c := range p.Plans {
				walk(c)
			}
		}
		walk(p)
		return out
	}
	plan := func(generic bool, q string, args ...any) (pgPlan, string) {
		text, err := s.PlanForTest(ctx, generic, q, args...)
		if err != nil {
			t.Fatal(err)
		}
		var doc []struct{ Plan pgPlan }
		if err := json.Unmarshal([]byte(text), &doc); err != nil || len(doc) != 1 {
			t.Fatalf("%v\n%s", err, text)
		}
		return doc[0].Plan, text
	}
	for _, fields := range []store.NodeFields{store.PageFields, store.AllFields} {
		for _, generic := range []bool{false, true} {
			one, oneText := plan(generic, store.JoinedReadQueryForTest(fields), "h3", "n1999")
			many, text := plan(generic, store.JoinedManyQueryForTest(fields), "{h3,h5,h7}", "{n1999,n5,n0}")
			if many.NodeType != "Nested Loop" || len(many.Plans) != 2 || many.Plans[0].NodeType != "Function Scan" {
				t.Fatalf("generic %v: the plan is not a nested loop over the arrays:\n%s", generic, text)
			}
			want := shape(one)
			if diff := cmp.Diff(want, shape(many.Plans[1])); diff != "" {
				t.Errorf("generic %v: a pair is not read as the single read is (-single +pair):\n%s\n%s\n%s", generic, diff, oneText, text)
			}
			if !strings.Contains(strings.Join(want, ","), "Index Scan tokens tokens_secret_hash_key") ||
				!strings.Contains(strings.Join(want, ","), "Index Scan nodes nodes_pkey") || !strings.Contains(text, "quire_token_reaches") {
				t.Errorf("generic %v: the single read's plan is not on its keys: %q\n%s", generic, want, oneText)
			}
		}
	}
}
