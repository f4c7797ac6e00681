package store

import (
	"context"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

const viewColumns = `id, workspace_id, database_id, position, name, type, spec, in_trash, version,
	created_ms, created_by, edited_ms, edited_by`

func scanView(row interface{ Scan(...any) error }) (*quire.View, error) {
	v := &quire.View{}
	var spec []byte
	err := row.Scan(&v.ID, &v.WorkspaceID, &v.DatabaseID, &v.Position, &v.Name, &v.Type, &spec, &v.InTrash,
		&v.Version, &v.CreatedMs, &v.CreatedBy, &v.EditedMs, &v.EditedBy)
	if err != nil {
		return nil, err
	}
	v.Spec = spec
	return v, nil
}

// ViewKey is the keyset position of a view among its database's views.
type ViewKey struct {
	Position string `json:"p"`
	ID       string `json:"i"`
}

// View returns view id of database db in workspace ws (in trash too), or not_found.
func (s *Store) View(ctx context.Context, ws, db, id string) (*quire.View, error) {
	return view(ctx, s.read, ws, db, id)
}

// View reads a view inside the transaction.
func (tx *Tx) View(ctx context.Context, ws, db, id string) (*quire.View, error) {
	return view(ctx, tx.tx, ws, db, id)
}

func view(ctx context.Context, q querier, ws, db, id string) (*quire.View, error) {
	v, err := scanView(q.QueryRowContext(ctx, `SELECT `+viewColumns+` FROM views
		WHERE id = $1 AND workspace_id = $2 AND database_id = $3`, id, ws, db))
	if err != nil {
		return nil, notFoundIf(err, "view "+id)
	}
	return v, nil
}

// Views returns up to limit views of database db whose type is one of kinds, in order, after
// key when set, leaving out views in trash. It walks the (database_id, position, id) index.
func (s *Store) Views(ctx context.Context, db string, kinds []string, after *ViewKey, limit int) ([]*quire.View, error) {
	args := []any{db, limit}
	query := `SELECT ` + viewColumns + ` FROM views WHERE database_id = $1 AND in_trash = FALSE`
	if after != nil {
		query += ` AND (position, id) > ($3, $4)`
		args = append(args, after.Position, after.ID)
	}
	marks := make([]string, len(kinds))
	for i, k := range kinds {
		args = append(args, k)
		marks[i] = "$" + strconv.Itoa(len(args))
	}
	query += ` AND type IN (` + strings.Join(marks, ", ") + `) ORDER BY position, id LIMIT $2`
	rows, err := s.read.QueryContext(ctx, query, args...)
	return scanAll(rows, err, scanView)
}

// LastViewPosition is the position of database db's last view, in trash or not ("" when none),
// so that a new view goes after every view ever placed there.
func (tx *Tx) LastViewPosition(ctx context.Context, db string) (string, error) {
	var pos string
	err := tx.tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(position), '') FROM views WHERE database_id = $1`, db).Scan(&pos)
	return pos, err
}

// InsertView stores a new view.
func (tx *Tx) InsertView(ctx context.Context, v *quire.View) error {
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO views (`+viewColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		v.ID, v.WorkspaceID, v.DatabaseID, v.Position, v.Name, v.Type, string(v.Spec), v.InTrash, v.Version,
		v.CreatedMs, v.CreatedBy, v.EditedMs, v.EditedBy)
	return err
}

// UpdateView writes v's name, spec and trash flag and increments its version, provided the
// stored version is still v.Version: a concurrent change in between answers conflict.
func (tx *Tx) UpdateView(ctx context.Context, v *quire.View) error {
	res, err := tx.tx.ExecContext(ctx, `UPDATE views SET name = $3, spec = $4, in_trash = $5,
		version = version + 1, edited_ms = $6, edited_by = $7 WHERE id = $1 AND version = $2`,
		v.ID, v.Version, v.Name, string(v.Spec), v.InTrash, v.EditedMs, v.EditedBy)
	if err != nil {
		return err
	}
	if k, _ := res.RowsAffected(); k == 0 {
		return quire.Conflict("The view changed while this request ran; read it again and retry.")
	}
	v.Version++
	return nil
}

// pageSortBatch bounds the parameters of one MissingRecords statement.
const pageSortBatch = 500

// MissingRecords returns the ids that are not records of database db (records in trash count
// as records), in the order given. Each batch looks the ids up on the primary key.
func (tx *Tx) MissingRecords(ctx context.Context, db string, ids []string) ([]string, error) {
	var missing []string
	for start := 0; start < len(ids); start += pageSortBatch {
		batch := ids[start:min(start+pageSortBatch, len(ids))]
		args := make([]any, 0, len(batch)+1)
		args = append(args, db)
		marks := make([]string, len(batch))
		for i, id := range batch {
			args = append(args, id)
			marks[i] = tx.placeholder(i + 2)
		}
		first := tx.placeholder(1)
		rows, err := tx.tx.QueryContext(ctx, `SELECT id FROM nodes WHERE parent_type = 'database_id'
			AND parent_id = `+first+` AND id IN (`+strings.Join(marks, ", ")+`)`, args...)
		if err != nil {
			return nil, err
		}
		found := make(map[string]bool, len(batch))
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			found[id] = true
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		for _, id := range batch {
			if !found[id] {
				missing = append(missing, id)
			}
		}
	}
	return missing, nil
}
