package service

import (
	"context"
	"errors"
	"log/slog"

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

// indexProperties registers properties props of database db of workspace ws (those of its
// schema) and writes their rows for every record from its stored values, in one transaction
// that first takes the database's indexing lock exclusively: the schema and the records read
// after it are those no writer can change without seeing the registration.
func (s *Service) indexProperties(ctx context.Context, ws, db string, props []string) error {
	return s.store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.LockIndexing(ctx, db); err != nil {
			return err
		}
		n, err := tx.Node(ctx, ws, db)
		if err != nil {
			return err
		}
		schema, err := DatabaseSchema(n)
		if err != nil {
			return err
		}
		var known []string
		for _, id := range props {
			if schema.ByID(id) != nil {
				known = append(known, id)
			}
		}
		added, err := tx.RegisterIndexed(ctx, db, known)
		if err != nil {
			return err
		}
		return writePropertyRows(ctx, tx, ws, db, schema, added)
	})
}

// writePropertyRows writes the rows of properties ids, which have none yet, for every record of
// database db of workspace ws, reading the records in batches by id: a unique_id's from the
// records' numbers in one statement, every other's from the record's stored values.
func writePropertyRows(ctx context.Context, tx *store.Tx, ws, db string, schema quire.Schema, ids []string) error {
	var props []*quire.Property
	for _, id := range ids {
		q := schema.ByID(id)
		if q.Type == quire.PropUniqueID {
			if err := tx.CopyRecordNumbers(ctx, db, id); err != nil {
				return err
			}
			continue
		}
		props = append(props, q)
	}
	if len(props) == 0 {
		return nil
	}
	all, err := tx.RecordIDs(ctx, db)
	if err != nil {
		return err
	}
	for start := 0; start < len(all); start += reindexBatch {
		recs, err := tx.Nodes(ctx, ws, all[start:min(start+reindexBatch, len(all))])
		if err != nil {
			return err
		}
		rows := make([]store.RecordRows, 0, len(recs))
		for _, r := range recs {
			vals, err := properties.UnmarshalValues(r.Properties)
			if err != nil {
				return err
			}
			var rr []store.RecordValue
			for _, q := range props {
				rr = append(rr, rowsOf(properties.PropertyScalars(q, vals, 0))...)
			}
			rows = append(rows, store.RecordRows{RecordID: r.ID, Rows: rr})
		}
		if err := tx.InsertRows(ctx, db, rows); err != nil {
			return err
		}
	}
	return nil
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
