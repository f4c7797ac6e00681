package service

import (
	"bytes"
	"context"
	"slices"

	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// newRecordValues decodes and checks a new record's raw properties at path against schema;
// no properties is a record with none set.
func newRecordValues(schema quire.Schema, raw any, path string) (properties.Values, error) {
	if raw == nil {
		return properties.Values{}, nil
	}
	return properties.DecodeValues(schema, raw, path, nil)
}

// knownPeople reports which of ids are users of workspace ws, reading only those that the
// transaction has not read yet.
func (db *recordDB) knownPeople(ctx context.Context, tx *store.Tx, ws string, ids []string) (map[string]bool, error) {
	var unread []string
	for _, id := range ids {
		if _, ok := db.people[id]; !ok {
			unread = append(unread, id)
		}
	}
	if len(unread) == 0 {
		return db.people, nil
	}
	found, err := tx.UsersExist(ctx, ws, unread)
	if err != nil {
		return nil, err
	}
	if db.people == nil {
		db.people = make(map[string]bool, len(found))
	}
	for id, ok := range found {
		db.people[id] = ok
	}
	return db.people, nil
}

// decodedCreates are a mutation batch's create operations' values, decoded before its
// transaction against the schema stored as schema. A batch decodes its properties outside the
// write transaction because SQLite writes one transaction at a time: what a transaction does
// is serial across every writer, what comes before it runs on every core.
type decodedCreates struct {
	schema []byte
	dual   bool                // the schema has a dual relation (sharesDatabase)
	vals   []properties.Values // by operation; nil where the operation is not a create or failed
	// forms are what the transaction would otherwise derive from vals, by operation: built here
	// too, so that the writer's serial transaction only writes them.
	forms []*recordForm
}

// recordForm is what a new record stores that follows from its values and its database's schema
// alone: its title, the stored JSON of its properties and its record_values rows (those of a
// unique_id property, which show the record's number, are left to the transaction).
type recordForm struct {
	title      []byte
	titlePlain string
	stored     []byte
	rows       []store.RecordValue
}

// formOf builds the form of a new record of schema with values vals.
func formOf(schema quire.Schema, vals properties.Values) *recordForm {
	title := vals.Title(schema)
	return &recordForm{title: recordTitle(title), titlePlain: title.PlainText(),
		stored: properties.MarshalValues(vals), rows: rowsOf(properties.Scalars(schema, vals, 0))}
}

// decodeCreates decodes the create operations of ops against database id's schema as read now,
// without a lock. Nothing is reported here: an operation that fails, or every one when the read
// fails, is decoded again in the transaction, which reports its problems. The one error is
// not_found for a workspace-scoped token when id is no node of its workspace: the read is that
// token's reach check (MutateRecords).
func (s *Service) decodeCreates(ctx context.Context, p *quire.Principal, id string, ops []Mutation) (*decodedCreates, error) {
	if !quire.ValidID(id) {
		return nil, quire.NotFound("database " + id)
	}
	n, err := s.store.Node(ctx, p.WorkspaceID(), id)
	if quire.IsCode(err, quire.CodeNotFound) && p.Token.WorkspaceScoped {
		return nil, quire.NotFound("database " + id)
	}
	if err != nil || n.Object != quire.ObjectDatabase {
		return nil, nil
	}
	schema, err := DatabaseSchema(n)
	if err != nil {
		return nil, nil
	}
	d := &decodedCreates{schema: n.Properties, dual: hasDualRelation(schema), vals: make([]properties.Values, len(ops)), forms: make([]*recordForm, len(ops))}
	numbered := slices.ContainsFunc(schema, func(q *quire.Property) bool { return q.Type == quire.PropUniqueID })
	for i, m := range ops {
		if m.Op != "create" {
			continue
		}
		if d.vals[i], _ = m.values(schema); d.vals[i] != nil && !numbered {
			d.forms[i] = formOf(schema, d.vals[i])
		}
	}
	return d, nil
}

// values returns create operation i's values against db's schema, and their form when it was
// built: those decoded before the transaction when db's schema is still the one they were
// decoded against, else decoded now (form nil: the transaction builds it).
func (d *decodedCreates) values(db *recordDB, i int, m Mutation) (properties.Values, *recordForm, error) {
	if d != nil && d.vals[i] != nil && bytes.Equal(d.schema, db.node.Properties) {
		return d.vals[i], d.forms[i], nil
	}
	vals, err := m.values(db.schema)
	return vals, nil, err
}
