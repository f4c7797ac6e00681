package service_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// TestConcurrentRecordBatches: batches of creates into one database run at once (on
// PostgreSQL under the database's shared lock, numbered last under its numbering lock), beside
// single creates and a schema change that hold the database exclusively. Every record is
// stored once with its rows, the numbers are 1 to N with none given twice, each batch's are
// consecutive in its order, and nothing fails. Without the numbering lock two batches read
// the same next number.
func TestConcurrentRecordBatches(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			db := indexedDatabase(t, svc, p, "Batches", nil)
			schema, err := service.DatabaseSchema(db)
			if err != nil {
				t.Fatal(err)
			}
			registerAll(t, st, db.ID, schema) // every property's rows written, under the indexing lock
			const clients, rounds, per, singles = 6, 3, 20, 8
			var wg sync.WaitGroup
			errs := make(chan error, clients*rounds+singles+1)
			batches := make([][]string, clients*rounds) // record ids, a batch each
			for c := range clients {
				wg.Go(func() {
					for r := range rounds {
						ops := make([]service.Mutation, per)
						for i := range ops {
							ops[i] = service.Mutation{Op: "create", Path: fmt.Sprintf("mutations[%d]", i), Properties: indexedValues(c*100+r*per+i, 0, p.Token.OwnerID)}
						}
						out, err := svc.MutateRecords(ctx, p, db.ID, ops)
						if err != nil {
							errs <- err
							return
						}
						for _, n := range out {
							batches[c*rounds+r] = append(batches[c*rounds+r], n.ID)
						}
					}
				})
			}
			var single []string
			wg.Go(func() {
				for i := range singles {
					n, err := svc.CreateRecord(ctx, p, service.NewPage{Parent: service.Parent{Type: quire.ParentDatabase, ID: db.ID},
						PageType: quire.PageTypePage, Properties: indexedValues(1000+i, 0, p.Token.OwnerID)})
					if err != nil {
						errs <- err
						return
					}
					single = append(single, n.ID)
					if i == singles/2 {
						patch, err := service.DecodeDatabasePatch([]byte(`{"properties":{"Extra":{"number":{}}}}`))
						if err == nil {
							_, err = svc.PatchDatabase(ctx, p, db.ID, patch)
						}
						if err != nil {
							errs <- err
							return
						}
					}
				}
			})
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			all := slices.Concat(append(batches, single)...)
			nums, err := st.RecordNumbers(ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int64]string{}
			for _, id := range all {
				n, ok := nums[id]
				if !ok {
					t.Fatalf("record %s has no number", id)
				}
				if other, ok := seen[n]; ok {
					t.Fatalf("number %d given to %s and %s", n, other, id)
				}
				seen[n] = id
			}
			for n := int64(1); n <= int64(len(all)); n++ {
				if _, ok := seen[n]; !ok {
					t.Fatalf("%d records, number %d missing", len(all), n)
				}
			}
			for k, b := range batches {
				for i := 1; i < len(b); i++ {
					if nums[b[i]] != nums[b[i-1]]+1 {
						t.Fatalf("batch %d: record %d numbered %d after %d", k, i, nums[b[i]], nums[b[i-1]])
					}
				}
			}
			got, err := svc.QueryDatabase(ctx, p, db.ID, service.RecordQuery{PageSize: 100})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Items) != 100 || got.NextCursor == "" {
				t.Fatalf("query: %d records, more %v; want a full page of %d", len(got.Items), got.NextCursor != "", len(all))
			}
		})
	}
}

var errChecked = errors.New("checked")

// TestSharedNodeLocks pins the locks the batches' concurrency rests on (PostgreSQL): two
// transactions hold a database's row FOR SHARE at once, a schema change waits for them, and
// the numbering lock is held by one transaction at a time until it ends. On SQLite, whose one
// writer needs no row lock, SharedNode reads the row and says it holds nothing shared.
func TestSharedNodeLocks(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			db := indexedDatabase(t, svc, p, "Locks", nil)
			if st.Engine() != store.Postgres {
				if err := st.InTx(ctx, func(tx *store.Tx) error {
					n, shared, err := tx.SharedNode(ctx, p.WorkspaceID(), db.ID)
					if err == nil && (shared || n.ID != db.ID) {
						t.Errorf("SharedNode on SQLite = %s, shared %v; want the database, not shared", n.ID, shared)
					}
					return err
				}); err != nil {
					t.Fatal(err)
				}
				return
			}
			held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
			go func() {
				done <- st.InTx(ctx, func(tx *store.Tx) error {
					if _, _, err := tx.SharedNode(ctx, p.WorkspaceID(), db.ID); err != nil {
						return err
					}
					if err := tx.LockRecordNumbers(ctx, db.ID); err != nil {
						return err
					}
					close(held)
					<-release
					return nil
				})
			}()
			<-held
			// Each check below waits at most 300 ms for a lock, then rolls its transaction back.
			check := func(what string, fn func(tx *store.Tx) error) error {
				err := st.InTx(ctx, func(tx *store.Tx) error {
					if err := tx.ExecForTest(ctx, `SET LOCAL lock_timeout = '300ms'`); err != nil {
						return err
					}
					if err := fn(tx); err != nil {
						return fmt.Errorf("%s: %w", what, err)
					}
					return errChecked
				})
				if errors.Is(err, errChecked) {
					return nil
				}
				return err
			}
			// A second batch shares the row at once, and waits for the numbering lock.
			if err := check("SharedNode beside another shared holder", func(tx *store.Tx) error {
				n, shared, err := tx.SharedNode(ctx, p.WorkspaceID(), db.ID)
				if err == nil && (!shared || n.ID != db.ID) {
					t.Errorf("SharedNode = %s, shared %v; want the database, shared", n.ID, shared)
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if err := check("LockRecordNumbers", func(tx *store.Tx) error { return tx.LockRecordNumbers(ctx, db.ID) }); err == nil {
				t.Error("LockRecordNumbers taken while another transaction holds it")
			}
			// An update of the row (a schema change, a trash) and a writer that locks it
			// exclusively wait for the shared holder.
			for _, q := range []string{`UPDATE nodes SET edited_ms = edited_ms WHERE id = $1`, `SELECT 1 FROM nodes WHERE id = $1 FOR UPDATE`} {
				if err := check(q, func(tx *store.Tx) error { return tx.ExecForTest(ctx, q, db.ID) }); err == nil {
					t.Errorf("%s went through while a batch holds the database shared", q)
				}
			}
			patch, err := service.DecodeDatabasePatch([]byte(`{"properties":{"Extra":{"number":{}}}}`))
			if err != nil {
				t.Fatal(err)
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if _, err := svc.PatchDatabase(ctx, p, db.ID, patch); err != nil {
				t.Fatalf("the schema change after the batch: %v", err)
			}
			if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.LockRecordNumbers(ctx, db.ID) }); err != nil {
				t.Fatalf("LockRecordNumbers after the holder ended: %v", err)
			}
		})
	}
}

// TestRecordBatchDualRelation: a batch of creates holds its database shared only while the
// database has no dual relation (a relation's sync writes other records, under their
// databases' exclusive locks). A dual relation added between the batch's decoding and its
// transaction ends the shared transaction, and the batch runs again holding the database
// exclusively: it succeeds, numbered as any other.
func TestRecordBatchDualRelation(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			db := indexedDatabase(t, svc, p, "Dual", nil)
			held, needs, err := svc.ShareDatabaseForTest(ctx, p, db.ID)
			if err != nil || needs || held != (st.Engine() == store.Postgres) {
				t.Fatalf("ShareDatabaseForTest without a dual relation = held %v, needs exclusive %v, %v", held, needs, err)
			}
			patch, err := service.DecodeDatabasePatch([]byte(`{"properties":{"Twin":{"relation":{"database_id":"` + db.ID + `","dual_property":{}}}}}`))
			if err != nil {
				t.Fatal(err)
			}
			first, err := svc.MutateRecords(ctx, p, db.ID, []service.Mutation{{Op: "create", Path: "mutations[0]", Properties: indexedValues(1, 0, p.Token.OwnerID)}})
			if err != nil {
				t.Fatal(err)
			}
			restore := service.SetAfterDecodeCreatesForTest(func() {
				if _, err := svc.PatchDatabase(ctx, p, db.ID, patch); err != nil {
					t.Error(err)
				}
			})
			ops := make([]service.Mutation, 5)
			for i := range ops {
				ops[i] = service.Mutation{Op: "create", Path: fmt.Sprintf("mutations[%d]", i), Properties: indexedValues(2+i, 0, p.Token.OwnerID)}
			}
			out, err := svc.MutateRecords(ctx, p, db.ID, ops)
			restore()
			if err != nil {
				t.Fatalf("the batch after a dual relation was added: %v", err)
			}
			held, needs, err = svc.ShareDatabaseForTest(ctx, p, db.ID)
			if err != nil || held || needs != (st.Engine() == store.Postgres) {
				t.Fatalf("ShareDatabaseForTest with a dual relation = held %v, needs exclusive %v, %v", held, needs, err)
			}
			ids := []string{first[0].ID}
			for _, n := range out {
				ids = append(ids, n.ID)
			}
			nums, err := st.RecordNumbers(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			for i, id := range ids {
				if nums[id] != int64(i+1) {
					t.Fatalf("record %d numbered %d; want %d", i, nums[id], i+1)
				}
			}
		})
	}
}
