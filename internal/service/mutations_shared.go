package service

import (
	"context"
	"errors"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// A batch of creates only, into a database without dual relations, holds the database's row
// shared and numbers its records last, under the database's numbering lock (store.SharedNode,
// store.LockRecordNumbers): several such batches write their records side by side and take
// turns only for the numbers. Any other batch, and any other writer of the database's records,
// holds the row exclusively, as lockDatabase does.

// errNeedsExclusive ends a shared batch's transaction when the database, read under the shared
// lock, has a dual relation after all (its schema changed since decodeCreates read it): the
// batch runs again holding the row exclusively, since a shared lock must never be upgraded.
var errNeedsExclusive = errors.New("service: the batch needs the database's exclusive lock")

// afterDecodeCreates, when set (tests), runs between decodeCreates and the batch's transaction.
var afterDecodeCreates func()

// sharesDatabase reports whether a batch of ops may hold its database's row shared: every
// operation creates a record, and the schema decodeCreates read has no dual relation.
func sharesDatabase(ops []Mutation, decoded *decodedCreates) bool {
	if decoded == nil || decoded.dual {
		return false
	}
	for _, m := range ops {
		if m.Op != "create" {
			return false
		}
	}
	return true
}

// shareDatabase is lockDatabase holding database id's row shared: held is false where the
// store needs no row locks (SQLite), and the batch then numbers its records as it goes.
func (s *Service) shareDatabase(ctx context.Context, tx *store.Tx, p *quire.Principal, id, path string) (db *recordDB, held bool, err error) {
	if !p.Token.WorkspaceScoped {
		if err := s.reachTx(ctx, tx, p, id, "database "+id); err != nil {
			return nil, false, err
		}
	}
	n, held, err := tx.SharedNode(ctx, p.WorkspaceID(), id)
	if err != nil && !quire.IsCode(err, quire.CodeNotFound) {
		return nil, false, err
	}
	db, err = writableDatabase(n, id, path)
	if err != nil {
		return nil, false, err
	}
	if held && hasDualRelation(db.schema) {
		return nil, false, errNeedsExclusive
	}
	return db, held, nil
}

// hasDualRelation reports whether schema has a relation that syncs into another property.
func hasDualRelation(schema quire.Schema) bool {
	for _, q := range schema {
		if q.Type == quire.PropRelation && q.DualPropertyID != "" {
			return true
		}
	}
	return false
}
