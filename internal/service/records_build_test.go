package service_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// buildFixture is a database of indexedSchema with n records, and what its tests ask of it.
type buildFixture struct {
	st  *store.Store
	svc *service.Service
	p   *quire.Principal
	db  string
	num string // the Num property's id
	ids []string
}

func newBuildFixture(t *testing.T, st *store.Store, n int) *buildFixture {
	t.Helper()
	svc, p := caller(t, st)
	db := indexedDatabase(t, svc, p, "Online", nil)
	schema, err := service.DatabaseSchema(db)
	if err != nil {
		t.Fatal(err)
	}
	f := &buildFixture{st: st, svc: svc, p: p, db: db.ID, num: schema.ByName("Num").ID}
	var ops []service.Mutation
	for i := range n {
		ops = append(ops, service.Mutation{Op: "create", Path: fmt.Sprintf("mutations[%d]", i), Properties: indexedValues(i, 0, p.Token.OwnerID)})
	}
	recs, err := svc.MutateRecords(ctx, p, db.ID, ops)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		f.ids = append(f.ids, r.ID)
	}
	return f
}

// big returns the ids of the records whose Num is at least 1000, sorted.
func (f *buildFixture) big(ctx context.Context) ([]string, error) {
	q, err := service.DecodeRecordQuery([]byte(`{"page_size":100,"filter":{"property":"Num","number":{"greater_than_or_equal_to":1000}}}`))
	if err != nil {
		return nil, err
	}
	page, err := f.svc.QueryDatabase(ctx, f.p, f.db, q)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range page.Items {
		out = append(out, r.ID)
	}
	slices.Sort(out)
	return out, nil
}

// building lists the database's properties whose build has not finished.
func (f *buildFixture) building(t *testing.T) []string {
	t.Helper()
	got, err := f.st.RowsForTest(ctx, `SELECT property_id FROM record_indexed WHERE database_id = $1 AND lease_ms <> 0`, f.db)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// setNum sets record id's Num to v, or creates a record with that Num when id is "".
func (f *buildFixture) setNum(id string, v float64) (string, error) {
	m := service.Mutation{Op: "create", Path: "mutations[0]", Properties: map[string]any{"Num": map[string]any{"number": v}}}
	if id != "" {
		m.Op, m.PageID = "update", id
	}
	recs, err := f.svc.MutateRecords(ctx, f.p, f.db, []service.Mutation{m})
	if err != nil {
		return "", err
	}
	return recs[0].ID, nil
}

// TestIndexBuildLetsWritersIn: a property's build over 10 records, 2 a batch, holds no writer
// between its batches: a write made from the hook after the second batch (while the property is
// building) commits before the build goes on, of a record built already, one not built yet and a
// new one, and the query that started the build answers with all three written values.
func TestIndexBuildLetsWritersIn(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			f := newBuildFixture(t, e.open(t), 10)
			var want []string
			batches := 0
			defer service.SetIndexBuildForTest(2, 0, func(string) error {
				if batches++; batches != 2 {
					return nil
				}
				if got := f.building(t); !slices.Equal(got, []string{f.num}) {
					t.Errorf("building between batches: %v; want Num", got)
				}
				wrote := make(chan error, 1)
				go func() {
					for i, id := range []string{f.ids[0], f.ids[9], ""} {
						id, err := f.setNum(id, 1000+float64(i))
						if err != nil {
							wrote <- err
							return
						}
						want = append(want, id)
					}
					wrote <- nil
				}()
				select { // a writer held by the build would wait for ever: the build waits for it here
				case err := <-wrote:
					return err
				case <-time.After(time.Minute):
					return errors.New("a write waited for the build")
				}
			})()
			got, err := f.big(ctx)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(want)
			if !slices.Equal(got, want) || len(want) != 3 {
				t.Errorf("Num ≥ 1000 after the build: %v; want the 3 written %v", got, want)
			}
			if batches != 4 || len(f.building(t)) != 0 {
				t.Errorf("%d hooks (want 4 of 5 batches), building after: %v", batches, f.building(t))
			}
		})
	}
}

// TestIndexBuildAbandoned: a build that stops after its first batch (its builder gone) leaves
// the property building; while its lease lasts a query on it waits (here until its context
// ends), and once the lease has expired the next query takes the build over and answers with
// every record's value.
func TestIndexBuildAbandoned(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			f := newBuildFixture(t, e.open(t), 7)
			var want []string
			for i, id := range []string{f.ids[1], f.ids[6]} {
				if _, err := f.setNum(id, 1000+float64(i)); err != nil {
					t.Fatal(err)
				}
				want = append(want, id)
			}
			slices.Sort(want)
			crash := errors.New("builder crashed")
			restore := service.SetIndexBuildForTest(2, time.Hour, func(string) error { return crash })
			if _, err := f.big(ctx); !errors.Is(err, crash) {
				t.Fatalf("the crashing build: %v; want %v", err, crash)
			}
			if got := f.building(t); !slices.Equal(got, []string{f.num}) {
				t.Fatalf("building after the crash: %v; want Num", got)
			}
			short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			if _, err := f.big(short); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a query while the lease lasts: %v; want it to wait for the build", err)
			}
			restore()
			if err := f.st.InTx(ctx, func(tx *store.Tx) error { // the lease expires
				return tx.Exec(ctx, `UPDATE record_indexed SET lease_ms = 1 WHERE database_id = $1 AND lease_ms <> 0`, f.db)
			}); err != nil {
				t.Fatal(err)
			}
			got, err := f.big(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) || len(f.building(t)) != 0 {
				t.Errorf("after the takeover: %v, building %v; want %v, none", got, f.building(t), want)
			}
		})
	}
}

// TestIndexBuildOutlivesItsRequest: the request that started a build goes away after its first
// batch (a client's timeout); the build goes on to the end, so a query after it answers at once
// with every record's value instead of waiting for a lease to expire.
func TestIndexBuildOutlivesItsRequest(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			f := newBuildFixture(t, e.open(t), 7)
			var want []string
			for i, id := range []string{f.ids[2], f.ids[5]} {
				if _, err := f.setNum(id, 1000+float64(i)); err != nil {
					t.Fatal(err)
				}
				want = append(want, id)
			}
			slices.Sort(want)
			req, cancel := context.WithCancel(ctx)
			defer cancel()
			var batches atomic.Int32 // counted by the build's goroutine
			defer service.SetIndexBuildForTest(2, time.Hour, func(string) error {
				if batches.Add(1) == 1 {
					cancel()
				}
				return nil
			})()
			if _, err := f.big(req); !errors.Is(err, context.Canceled) {
				t.Fatalf("the query whose client left: %v; want %v", err, context.Canceled)
			}
			deadline := time.Now().Add(time.Minute)
			for len(f.building(t)) != 0 {
				if time.Now().After(deadline) {
					t.Fatalf("still building a minute after the request left: %v", f.building(t))
				}
				time.Sleep(10 * time.Millisecond)
			}
			// With a lease of an hour, an abandoned build would keep this query waiting.
			short, stop := context.WithTimeout(ctx, 30*time.Second)
			defer stop()
			got, err := f.big(short)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("after the build: %v, %v; want %v", got, err, want)
			}
			if n := batches.Load(); n != 3 {
				t.Errorf("%d hooks; want 3, after each of the build's 4 batches but the last (7 records, 2 a batch)", n)
			}
		})
	}
}
