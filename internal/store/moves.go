package store

import (
	"context"
	"database/sql"
	"errors"
)

// What a move reads and writes besides the nodes and blocks rows that every write shares: the
// key before a sibling (before), the siblings a moved node ends up between (the move's answer),
// and a record's rows when it leaves its database.

// PositionBefore is the position of the last child of parent (a block) before pos, trashed ones
// too ("" when none): with pos it bounds a key right before that sibling.
func (tx *Tx) PositionBefore(ctx context.Context, parent, pos string) (string, error) {
	var prev string
	err := tx.tx.QueryRowContext(ctx,
		`SELECT COALESCE(MAX(position), '') FROM blocks WHERE parent_id = $1 AND position < $2`, parent, pos).Scan(&prev)
	return prev, err
}

// TopLevelPositionBefore is the position of the last top-level node of workspace ws before pos
// ("" when none).
func (tx *Tx) TopLevelPositionBefore(ctx context.Context, ws, pos string) (string, error) {
	var prev string
	err := tx.tx.QueryRowContext(ctx, topLevelBefore, ws, pos).Scan(&prev)
	return prev, err
}

// Neighbours are the ids of the siblings right before and right after a child ("" for none).
type Neighbours struct{ Before, After string }

// BlockNeighbours returns the children of parent (blocks not in trash) right before and right
// after the child at (pos, id), on blocks_children.
func (tx *Tx) BlockNeighbours(ctx context.Context, parent, pos, id string) (Neighbours, error) {
	const sibling = `SELECT id FROM blocks WHERE parent_id = $1 AND in_trash = FALSE AND `
	return tx.neighbours(ctx,
		sibling+`(position, id) < ($2, $3) ORDER BY position DESC, id DESC LIMIT 1`,
		sibling+`(position, id) > ($2, $3) ORDER BY position, id LIMIT 1`, parent, pos, id)
}

// TopLevelNeighbours returns the top-level nodes of workspace ws (not in trash) right before and
// right after the one at (pos, id), on nodes_top_level.
func (tx *Tx) TopLevelNeighbours(ctx context.Context, ws, pos, id string) (Neighbours, error) {
	return tx.neighbours(ctx, topLevelNeighbourBefore, topLevelNeighbourAfter, ws, pos, id)
}

const (
	topLevelNeighbourBefore = topLevelSibling + `(position, id) < ($2, $3) ORDER BY position DESC, id DESC LIMIT 1`
	topLevelNeighbourAfter  = topLevelSibling + `(position, id) > ($2, $3) ORDER BY position, id LIMIT 1`
)

func (tx *Tx) neighbours(ctx context.Context, before, after string, args ...any) (Neighbours, error) {
	var nb Neighbours
	for _, q := range []struct {
		sql string
		id  *string
	}{{before, &nb.Before}, {after, &nb.After}} {
		err := tx.tx.QueryRowContext(ctx, q.sql, args...).Scan(q.id)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return Neighbours{}, err
		}
	}
	return nb, nil
}

// DeleteRecordValues deletes every record_values row of record id (its number too), as it stops
// being a record.
func (tx *Tx) DeleteRecordValues(ctx context.Context, id string) error {
	if tx.engine == Postgres {
		// The database's shared indexing lock (records_indexed.go), found by the record's
		// number, which every record has: a registration that read the record as still in
		// the database then committed its rows before this statement, which deletes them.
		var db string
		err := tx.tx.QueryRowContext(ctx, `SELECT database_id FROM record_values WHERE record_id = $1 AND property_id = $2 AND ord = 0`,
			id, NumberProperty).Scan(&db)
		if err == nil {
			_, err = tx.indexedOf(ctx, db)
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	_, err := tx.tx.ExecContext(ctx, `DELETE FROM record_values WHERE record_id = $1`, id)
	return err
}
