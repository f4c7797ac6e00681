package store_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// tripProxy forwards the store's connections to PostgreSQL and counts round trips: a client
// write that follows the end of an answer (ReadyForQuery) on its connection, so that statements
// sent together count once however TCP cuts them.
type tripProxy struct {
	mu    sync.Mutex
	trips int
}

// proxied opens a store on a fresh PostgreSQL database through a tripProxy.
func proxied(t *testing.T) (*store.Store, *tripProxy) {
	t.Helper()
	u, err := url.Parse(testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tripProxy{}
	target := u.Host
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c, target)
		}
	}()
	u.Host = ln.Addr().String()
	s, err := store.Open(ctx, store.Config{DatabaseURL: u.String()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); ln.Close() })
	return s, p
}

func (p *tripProxy) serve(c net.Conn, target string) {
	defer c.Close()
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	var mu sync.Mutex
	answered := true // the last thing seen is an answer's end (or nothing yet)
	go func() {      // server to client: find each ReadyForQuery ('Z') among the messages
		r := io.TeeReader(up, c)
		head := make([]byte, 5)
		for {
			if _, err := io.ReadFull(r, head); err != nil {
				c.Close()
				return
			}
			if _, err := io.CopyN(io.Discard, r, int64(binary.BigEndian.Uint32(head[1:]))-4); err != nil {
				c.Close()
				return
			}
			if head[0] == 'Z' {
				mu.Lock()
				answered = true
				mu.Unlock()
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			mu.Lock()
			if answered {
				answered = false
				p.mu.Lock()
				p.trips++
				p.mu.Unlock()
			}
			mu.Unlock()
			if _, err := up.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// count runs f and returns the round trips made meanwhile.
func (p *tripProxy) count(f func()) int {
	p.mu.Lock()
	p.trips = 0
	p.mu.Unlock()
	f()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.trips
}

// TestPGTx_RoundTrips pins the round trips of PostgreSQL's write transaction: an append's
// (the last position with BEGIN ahead of it; the INSERT, the page's lock and the count; the
// deferred statements with COMMIT) is three, where BeginTx's BEGIN alone, the statements one
// by one and the COMMIT of an empty transaction after the pipeline's made it six or more. A
// transaction whose first statement goes through database/sql sends BEGIN alone before it, as
// BeginTx did; one that sends nothing makes no round trip.
func TestPGTx_RoundTrips(t *testing.T) {
	s, p := proxied(t)
	w, _ := seed(t, s)
	page := newNode(w.ID, "")
	mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNode(ctx, page) })
	appendTx := func(n int) error {
		return s.InTx(ctx, func(tx *store.Tx) error {
			lo, err := tx.LastChildPosition(ctx, page.ID)
			if err != nil {
				return err
			}
			keys, _ := order.NBetween(lo, "", n)
			bs := make([]*quire.Block, n)
			for i := range bs {
				bs[i] = &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID, Position: keys[i],
					Type: "paragraph", Content: []byte(`{"rich_text":[{"plain_text":"trip"}]}`),
					Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}
			}
			hidden, after, err := tx.InsertBlocksTouching(ctx, bs, w.ID, page.ID, 2, "u", page.ID, lo)
			if err == nil && (hidden || after != n) {
				err = errors.New("the page hidden, or other blocks after the append's start")
			}
			return err
		})
	}
	// Warm the connection: statements prepared (each width of the INSERT is a text of its
	// own), ResetSession's ping done.
	for _, n := range []int{100, 1, 100} {
		if err := appendTx(n); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		fn   func() error
		want int
	}{
		{"append of 100", func() error { return appendTx(100) }, 3},
		{"append of 1", func() error { return appendTx(1) }, 3},
		{"nothing sent", func() error { return s.InTx(ctx, func(tx *store.Tx) error { return nil }) }, 0},
		{"database/sql first", func() error {
			return s.InTx(ctx, func(tx *store.Tx) error { return tx.Exec(ctx, `SELECT 1`) })
		}, 3}, // BEGIN, the statement, COMMIT
	}
	for _, c := range cases {
		var err error
		got := p.count(func() { err = c.fn() })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: %d round trips, want %d", c.name, got, c.want)
		}
	}
	var n int
	scanOne(t, s, `SELECT count(*) FROM blocks WHERE parent_id = '`+page.ID+`'`, &n)
	if n != 302 {
		t.Fatalf("%d blocks on the page, want 302", n)
	}
}

// TestPGTx_RollsBackEveryWay: whatever way a PostgreSQL write fails, nothing of it stays and
// no connection goes back to the pool inside a transaction (each case is followed by a check
// of pg_stat_activity and by writes that must land): a statement's error in the INSERT of the
// append's pipeline or in the lock after it, a Go error or a panic after statements, a
// statement's error that fn swallowed (COMMIT then answers ROLLBACK), a deferred constraint
// that fails at COMMIT, a request cancelled while the pipeline of the INSERT waits for the
// page's lock; and one cancelled in the middle of the commit's pipeline is whole or nothing.
func TestPGTx_RollsBackEveryWay(t *testing.T) {
	s := testdb.Postgres(t)
	defer store.SetWriteGraceForTest(50 * time.Millisecond)()
	w, _ := seed(t, s)
	page := newNode(w.ID, "")
	mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNode(ctx, page) })
	seq := 0
	block := func(content string) *quire.Block {
		seq++
		return &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID,
			Position: "a" + strings.Repeat("b", seq), Type: "paragraph",
			Content: []byte(`{"rich_text":[{"plain_text":"` + content + `"}]}`),
			Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}
	}
	appendOf := func(c context.Context, tx *store.Tx, bs ...*quire.Block) error {
		_, _, err := tx.InsertBlocksTouching(c, bs, w.ID, page.ID, 2, "u", page.ID, "")
		return err
	}
	execAll(t, s, `CREATE TABLE boom_marks (id text)`,
		`CREATE FUNCTION boom_check() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.content::text LIKE '%boom%' THEN
				RAISE EXCEPTION 'deferred boom' USING ERRCODE = '23514';
			END IF;
			RETURN NULL;
		END $$`,
		`CREATE CONSTRAINT TRIGGER boom AFTER INSERT ON blocks DEFERRABLE INITIALLY DEFERRED
			FOR EACH ROW EXECUTE FUNCTION boom_check()`)
	dup := block("dup")
	mustTx(t, s, func(tx *store.Tx) error { return appendOf(ctx, tx, dup) })

	var version int64
	scanOne(t, s, `SELECT version FROM nodes WHERE id = '`+page.ID+`'`, &version)
	var blocksBefore int
	scanOne(t, s, `SELECT count(*) FROM blocks`, &blocksBefore)

	cases := []struct {
		name    string
		fn      func(tx *store.Tx) error
		ctx     func() (context.Context, func())
		wantErr func(error) bool
	}{
		{name: "the INSERT fails (a unique violation)", fn: func(tx *store.Tx) error {
			return appendOf(ctx, tx, block("fresh"), dup)
		}, wantErr: pgCode("23505")},
		{name: "the lock finds no page", fn: func(tx *store.Tx) error {
			_, _, err := tx.InsertBlocksTouching(ctx, []*quire.Block{block("orphan")}, w.ID, quire.NewID(), 2, "u", page.ID, "")
			return err
		}, wantErr: func(err error) bool { return quire.IsCode(err, quire.CodeNotFound) }},
		{name: "a Go error after the statements", fn: func(tx *store.Tx) error {
			if err := appendOf(ctx, tx, block("go error")); err != nil {
				return err
			}
			return errors.New("refused")
		}, wantErr: func(err error) bool { return err != nil && err.Error() == "refused" }},
		{name: "a swallowed statement error", fn: func(tx *store.Tx) error {
			if err := appendOf(ctx, tx, block("swallowed")); err != nil {
				return err
			}
			_ = tx.Exec(ctx, `SELECT 1/0`)
			return nil
		}, wantErr: func(err error) bool { return errors.Is(err, pgx.ErrTxCommitRollback) || pgCode("25P02")(err) }},
		{name: "a deferred constraint fails at COMMIT", fn: func(tx *store.Tx) error {
			return appendOf(ctx, tx, block("boom"))
		}, wantErr: pgCode("23514")},
		{name: "cancelled while the INSERT's pipeline waits for the lock", fn: func(tx *store.Tx) error {
			return appendOf(ctx, tx, block("waits"))
		}, ctx: holdPage(t, s, page.ID), wantErr: func(err error) bool { return err != nil }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c1, end := ctx, func() {}
			if c.ctx != nil {
				c1, end = c.ctx()
			}
			start := time.Now()
			err := s.InTx(c1, c.fn)
			end()
			if !c.wantErr(err) {
				t.Fatalf("error %v (%T)", err, err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("returned after %v", d)
			}
			assertClean(t, s)
			var v int64
			scanOne(t, s, `SELECT version FROM nodes WHERE id = '`+page.ID+`'`, &v)
			var n int
			scanOne(t, s, `SELECT count(*) FROM blocks`, &n)
			if v != version || n != blocksBefore {
				t.Fatalf("after the failed write: page version %d, %d blocks; want %d, %d", v, n, version, blocksBefore)
			}
		})
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic was not passed on")
			}
		}()
		_ = s.InTx(ctx, func(tx *store.Tx) error {
			if err := appendOf(ctx, tx, block("panics")); err != nil {
				return err
			}
			panic("in the write")
		})
	}()
	assertClean(t, s)

	// Cancelled in the middle of the commit's pipeline: COMMIT was sent with the statements
	// before it, so, as with any connection lost during a COMMIT, the write may still commit
	// once the statement before it ends; it must do so whole or not at all, and the error come
	// back without waiting for it.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	start := time.Now()
	err := s.InTx(short, func(tx *store.Tx) error {
		if err := appendOf(ctx, tx, block("slow commit")); err != nil {
			return err
		}
		tx.DeferForTest(`SELECT pg_sleep(1)`)
		return nil
	})
	cancel()
	if err == nil || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("a commit cancelled in its pipeline: %v after %v", err, time.Since(start))
	}
	time.Sleep(2 * time.Second) // the broken-off pipeline has ended by now
	assertClean(t, s)
	var v int64
	var nb, slow int
	scanOne(t, s, `SELECT version FROM nodes WHERE id = '`+page.ID+`'`, &v)
	scanOne(t, s, `SELECT count(*), count(*) FILTER (WHERE content::text LIKE '%slow commit%') FROM blocks`, &nb, &slow)
	if (v != version || nb != blocksBefore) && (v != version+1 || nb != blocksBefore+1 || slow != 1) {
		t.Fatalf("after a commit cancelled in its pipeline: version %d, %d blocks; want %d, %d or the whole write", v, nb, version, blocksBefore)
	}
	keptSlow := slow

	for i := range 20 {
		mustTx(t, s, func(tx *store.Tx) error { return appendOf(ctx, tx, block("after "+string(rune('a'+i)))) })
	}
	var n, fails int
	scanOne(t, s, `SELECT count(*), count(*) FILTER (WHERE content::text !~ '"(dup|after .|slow commit)"')
		FROM blocks WHERE parent_id = '`+page.ID+`'`, &n, &fails)
	if n != 21+keptSlow || fails != 0 {
		t.Fatalf("%d blocks on the page (%d of failed writes); want the first and 20 after, none failed", n, fails)
	}
}

// holdPage returns a case's context maker: it holds page's row in another transaction, and the
// returned end lets it go.
func holdPage(t *testing.T, s *store.Store, page string) func() (context.Context, func()) {
	return func() (context.Context, func()) {
		held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() {
			done <- s.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.Exec(ctx, `SELECT 1 FROM nodes WHERE id = $1 FOR UPDATE`, page); err != nil {
					return err
				}
				close(held)
				<-release
				return nil
			})
		}()
		<-held
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		return short, func() {
			cancel()
			close(release)
			if err := <-done; err != nil {
				t.Errorf("the holder: %v", err)
			}
		}
	}
}

// pgCode tells whether an error is PostgreSQL's of code.
func pgCode(code string) func(error) bool {
	return func(err error) bool {
		var pgErr *pgconn.PgError
		return errors.As(err, &pgErr) && pgErr.Code == code
	}
}

// assertClean fails when a backend of the store's database stays inside a transaction for 2 s
// (a backend whose client broke off may take a moment to notice).
func assertClean(t *testing.T, s *store.Store) {
	t.Helper()
	var n int
	for end := time.Now().Add(2 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		scanOne(t, s, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'`, &n)
		if n == 0 {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%d connections idle inside a transaction", n)
		}
	}
}
