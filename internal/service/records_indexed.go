package service

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/views"
)

// A database keeps record_values rows only for the properties a query or a view has filtered
// or sorted on (store/records_indexed.go, docs/architecture.md): a record written costs an
// index entry per such property, not one per property it has. The first query on another
// property registers it and writes its rows from every record's stored values before it is
// answered; queries after it read the rows as before.

// queryRecords runs query q through the store, registering first the properties it reads
// that the database keeps no rows for yet.
func (s *Service) queryRecords(ctx context.Context, ws string, q dbquery.Query, pageSize int, numbers bool) (*store.RecordPage, error) {
	page, err := s.store.QueryRecords(ctx, ws, q, pageSize, numbers)
	var missing *store.NotIndexedError
	if !errors.As(err, &missing) {
		return page, err
	}
	if err := s.indexProperties(ctx, ws, q.DatabaseID, missing.Properties); err != nil {
		return nil, err
	}
	page, err = s.store.QueryRecords(ctx, ws, q, pageSize, numbers)
	if errors.As(err, &missing) {
		// Only a property removed from the schema since the query read it stays unregistered.
		return nil, quire.Conflict("The database's properties changed while this request ran; retry it.")
	}
	return page, err
}

// The online build's sizes, variables for the tests: records per batch transaction, a builder's
// lease (renewed with each batch; a query finding it expired takes the build over), how often a
// query polls for a build another request runs, and a hook after each batch's commit (an error
// from it abandons the build, as a crashed builder would).
var (
	indexBatch      = 1000
	indexLease      = 30 * time.Second
	indexPoll       = 50 * time.Millisecond
	afterIndexBatch func(db string) error
)

// indexProperties makes properties props of database db of workspace ws (those of its schema)
// built: it registers them as building in a short transaction, from which on every writer keeps
// their rows, then writes the rows of the records that existed then a batch per transaction, and
// marks them built. No writer waits longer than one batch. A property another request builds is
// waited for (or taken over once its builder's lease expired).
func (s *Service) indexProperties(ctx context.Context, ws, db string, props []string) error {
	for {
		// The claim and the build run to their end even when the request that started them goes
		// away (a client's timeout, a load generator's end of run): a build abandoned half-way
		// holds its lease until it expires, and on a database whose build outlasts the clients'
		// timeout no query would ever see it finished. The request waits for it, or for its own end.
		type claim struct {
			held []string
			err  error
		}
		// Graceful shutdown tracks it (records_shutdown.go): it stops at a batch's end and hands
		// its lease back rather than failing on a closed store with the lease kept.
		done := make(chan claim, 1)
		if !s.builds.start(func() {
			held, err := s.claimAndBuild(context.WithoutCancel(ctx), ws, db, props)
			done <- claim{held, err}
		}) {
			return errShuttingDown()
		}
		var c claim
		select {
		case <-ctx.Done():
			return ctx.Err()
		case c = <-done:
		}
		if c.err != nil || len(c.held) == 0 {
			return c.err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(indexPoll):
		}
		props = c.held
	}
}

// claimAndBuild is one round of indexProperties: it claims what no live builder holds of props,
// builds it, and returns the properties another builder holds.
func (s *Service) claimAndBuild(ctx context.Context, ws, db string, props []string) (held []string, err error) {
	var claimed, ids []string
	var schema quire.Schema
	err = s.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.LockIndexing(ctx, db); err != nil {
			return err
		}
		n, err := tx.Node(ctx, ws, db)
		if err != nil {
			return err
		}
		if schema, err = DatabaseSchema(n); err != nil {
			return err
		}
		var known []string
		for _, id := range props {
			if schema.ByID(id) != nil {
				known = append(known, id)
			}
		}
		now := time.Now()
		claimed, held, err = tx.ClaimIndexing(ctx, db, known, now.UnixMilli(), now.Add(indexLease).UnixMilli())
		if err != nil || len(claimed) == 0 {
			return err
		}
		ids, err = tx.RecordIDs(ctx, db)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(claimed) > 0 {
		if err := s.buildProperties(ctx, ws, db, schema, claimed, ids); err != nil {
			return nil, err
		}
	}
	return held, nil
}

// buildProperties writes the rows of properties claimed for records ids of database db, a batch
// per transaction that takes the indexing lock exclusively, reads the records' stored values and
// numbers and rewrites their rows from them (a writer's rows of a record equal them), renewing
// the lease; the last marks the properties built.
func (s *Service) buildProperties(ctx context.Context, ws, db string, schema quire.Schema, claimed, ids []string) error {
	props := make([]*quire.Property, len(claimed))
	for i, id := range claimed {
		props[i] = schema.ByID(id)
	}
	for start := 0; ; start += indexBatch {
		if s.builds.stopped() {
			return errors.Join(errShuttingDown(), s.releaseBuild(ctx, db, claimed))
		}
		batch := ids[start:min(start+indexBatch, len(ids))]
		last := start+indexBatch >= len(ids)
		err := s.store.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.LockIndexing(ctx, db); err != nil {
				return err
			}
			if err := writePropertyRows(ctx, tx, ws, db, props, batch); err != nil {
				return err
			}
			lease := time.Now().Add(indexLease).UnixMilli()
			if last {
				lease = 0
			}
			return tx.SetIndexingLease(ctx, db, claimed, lease)
		})
		if err != nil {
			return err
		}
		if last {
			return nil
		}
		if afterIndexBatch != nil {
			if err := afterIndexBatch(db); err != nil {
				return err
			}
		}
	}
}

// writePropertyRows rewrites the rows of properties props for records ids of database db of
// workspace ws from their stored values and numbers (those still in db; deleted ones are gone).
func writePropertyRows(ctx context.Context, tx *store.Tx, ws, db string, props []*quire.Property, ids []string) error {
	recs, err := tx.RecordsIn(ctx, ws, db, ids)
	if err != nil {
		return err
	}
	numbers, err := tx.RecordNumbers(ctx, ids)
	if err != nil {
		return err
	}
	keys := make([]store.RecordProperty, 0, len(recs)*len(props))
	rows := make([]store.RecordRows, 0, len(recs))
	// A record moved out since the registration read the ids is left out (RecordsIn): its rows
	// went with it.
	for _, r := range recs {
		vals, err := properties.UnmarshalValues(r.Properties)
		if err != nil {
			return err
		}
		var rr []store.RecordValue
		for _, q := range props {
			keys = append(keys, store.RecordProperty{RecordID: r.ID, PropertyID: q.ID})
			rr = append(rr, rowsOf(properties.PropertyScalars(q, vals, numbers[r.ID]))...)
		}
		rows = append(rows, store.RecordRows{RecordID: r.ID, Rows: rr})
	}
	if err := tx.DeleteRows(ctx, keys); err != nil {
		return err
	}
	return tx.InsertRows(ctx, db, rows)
}

// indexView registers the properties that view v of database db filters and sorts on, once it
// is saved, so that its first query finds their rows written. A failure is only logged: the
// view is saved, and its first query registers them then.
func (s *Service) indexView(ctx context.Context, ws, db string, v *DatabaseView) {
	if v == nil || v.Row.InTrash {
		return
	}
	shown := views.Read(v.Schema, v.Spec, false)
	filter, sorts, err := dbquery.FromView(querySchema(v.Schema), shown.Filter, shown.Sorts, "view")
	if err == nil {
		props := dbquery.ValueProperties(dbquery.Query{DatabaseID: db, Filter: filter, Sorts: sorts})
		if len(props) == 0 {
			return
		}
		err = s.indexProperties(ctx, ws, db, props)
	}
	if err != nil {
		slog.Warn("indexing a view's properties failed", "database", db, "view", v.Row.ID, "err", err)
	}
}

// querySchema is schema as dbquery decodes filters and sorts against it.
func querySchema(schema quire.Schema) *dbquery.Schema {
	props := make([]dbquery.Property, len(schema))
	for i, prop := range schema {
		props[i] = dbquery.Property{ID: prop.ID, Name: prop.Name, Type: prop.Type}
		for _, o := range prop.Options {
			props[i].Options = append(props[i].Options, dbquery.Option{ID: o.ID, Name: o.Name})
		}
	}
	return dbquery.NewSchema(props)
}
