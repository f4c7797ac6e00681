package service_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// TestIndexBuildStopsAtShutdown: shutdown begins while a property's build runs (from the hook
// after its first batch); the build stops before its next batch, its request answers 503, the
// shutdown's wait ends, and the property is left building with an expired lease: a new service
// on the same store (the restarted server) takes the build over at once, though the lease it was
// given was an hour, and answers every record's value.
func TestIndexBuildStopsAtShutdown(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			f := newBuildFixture(t, st, 7)
			var want []string
			for i, id := range []string{f.ids[0], f.ids[4]} {
				if _, err := f.setNum(id, 1000+float64(i)); err != nil {
					t.Fatal(err)
				}
				want = append(want, id)
			}
			slices.Sort(want)
			batches, first := 0, f.svc // the hook runs in the build's goroutine, which the request waits for
			defer service.SetIndexBuildForTest(2, time.Hour, func(string) error {
				batches++
				first.StopBuilds()
				return nil
			})()
			_, err := f.big(ctx)
			if !quire.IsCode(err, quire.CodeUnavailable) {
				t.Fatalf("the query whose build the shutdown stopped: %v; want %s", err, quire.CodeUnavailable)
			}
			if err := f.svc.WaitBuilds(ctx); err != nil {
				t.Fatal(err)
			}
			if batches != 1 {
				t.Errorf("%d batches written; want 1, the one under way when shutdown began", batches)
			}
			if got := f.building(t); !slices.Equal(got, []string{f.num}) {
				t.Fatalf("building after the shutdown: %v; want Num", got)
			}
			leases, err := st.RowsForTest(ctx, `SELECT CAST(lease_ms AS TEXT) FROM record_indexed
				WHERE database_id = $1 AND lease_ms <> 0 AND lease_ms > $2`, f.db, time.Now().UnixMilli())
			if err != nil || len(leases) != 0 {
				t.Fatalf("leases still live after the shutdown: %v, %v; want none", leases, err)
			}
			if _, err := f.big(ctx); !quire.IsCode(err, quire.CodeUnavailable) {
				t.Errorf("a query on the stopped service: %v; want %s, no new build", err, quire.CodeUnavailable)
			}

			f.svc = service.New(st, service.Options{BaseURL: "http://127.0.0.1"})
			// Waiting out the hour's lease would end this context first.
			short, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			got, err := f.big(short)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("the restarted server's query: %v, %v; want %v", got, err, want)
			}
			if b := f.building(t); len(b) != 0 {
				t.Errorf("still building after the restarted server's query: %v", b)
			}
			if err := f.svc.WaitBuilds(ctx); err != nil {
				t.Error(err)
			}
		})
	}
}
