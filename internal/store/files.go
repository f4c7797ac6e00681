package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/sqlq"
)

const fileColumns = `id, workspace_id, token_id, COALESCE(parent_id, ''), name, content_type, size, status,
	storage_key, created_ms, expires_ms, completed_ms`

func scanFile(row interface{ Scan(...any) error }) (*quire.File, error) {
	f := &quire.File{}
	err := row.Scan(&f.ID, &f.WorkspaceID, &f.TokenID, &f.ParentID, &f.Name, &f.ContentType, &f.Size, &f.Status,
		&f.StorageKey, &f.CreatedMs, &f.ExpiresMs, &f.CompletedMs)
	return f, err
}

// InsertFile records an announced upload, and its parent page as a use of it.
func (tx *Tx) InsertFile(ctx context.Context, f *quire.File) error {
	var parent any
	if f.ParentID != "" {
		parent = f.ParentID
	}
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO files (id, workspace_id, token_id, parent_id, name, content_type, size,
		status, storage_key, created_ms, expires_ms, completed_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		f.ID, f.WorkspaceID, f.TokenID, parent, f.Name, f.ContentType, f.Size, f.Status, f.StorageKey,
		f.CreatedMs, f.ExpiresMs, f.CompletedMs)
	if err != nil || f.ParentID == "" {
		return err
	}
	return tx.AddFileUses(ctx, f.ParentID, []string{f.ID})
}

// File returns file id of workspace ws, or not_found.
func (s *Store) File(ctx context.Context, ws, id string) (*quire.File, error) {
	f, err := scanFile(s.read.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = $1 AND workspace_id = $2`, id, ws))
	if err != nil {
		return nil, notFoundIf(err, "file "+id)
	}
	return f, nil
}

// FileByID returns file id of any workspace: the signed URLs carry no workspace.
func (s *Store) FileByID(ctx context.Context, id string) (*quire.File, error) {
	f, err := scanFile(s.read.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM files WHERE id = $1`, id))
	if err != nil {
		return nil, notFoundIf(err, "file "+id)
	}
	return f, nil
}

// UploadedFiles returns which of ids are complete uploads of workspace ws, read inside the
// transaction that will use them, a hundred ids per query on the primary key.
func (tx *Tx) UploadedFiles(ctx context.Context, ws string, ids []string) (map[string]bool, error) {
	return idSetIn(ctx, tx.tx, unique(ids), tx.engine == SQLite, func(a *sqlq.Args, batch []string) string {
		return `SELECT id FROM files WHERE workspace_id = ` + a.Arg(ws) + ` AND status = ` + a.Arg(quire.FileUploaded) +
			` AND id IN (` + sqlq.In(a, batch) + `)`
	})
}

func unique(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// ClaimUpload moves a pending upload whose URL is still valid at nowMs to uploading, so that
// its URL works once. ok is false when it is not (any more) pending or has expired.
func (s *Store) ClaimUpload(ctx context.Context, id string, nowMs int64) (bool, error) {
	res, err := s.write.ExecContext(ctx, `UPDATE files SET status = $1 WHERE id = $2 AND status = $3 AND expires_ms >= $4`,
		quire.FileUploading, id, quire.FilePending, nowMs)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// FinishUpload moves an uploading file to status (uploaded or failed) and records its size,
// the bytes received (an upload announced without a size learns it here). ok is false when
// the file is no longer uploading (the sweep expired it meanwhile). It takes the transaction in
// which the service records file_upload.completed.
func (tx *Tx) FinishUpload(ctx context.Context, id, status string, size, nowMs int64) (bool, error) {
	res, err := tx.tx.ExecContext(ctx, `UPDATE files SET status = $1, completed_ms = $2, size = $5 WHERE id = $3 AND status = $4`,
		status, nowMs, id, quire.FileUploading, size)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// StaleUploads returns up to limit uploads in state status whose URL expired before
// beforeMs, oldest first, on the (status, expires_ms) index.
func (s *Store) StaleUploads(ctx context.Context, status string, beforeMs int64, limit int) ([]*quire.File, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+fileColumns+` FROM files
		WHERE status = $1 AND expires_ms < $2 ORDER BY expires_ms LIMIT $3`, status, beforeMs, limit)
	return scanAll(rows, err, scanFile)
}

// SetFileStatus moves file id from status from to status to; ok is false when it was not in from.
func (s *Store) SetFileStatus(ctx context.Context, id, from, to string) (bool, error) {
	res, err := s.write.ExecContext(ctx, `UPDATE files SET status = $1 WHERE id = $2 AND status = $3`, to, id, from)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// AddFileUses records that page uses each of files, a hundred rows per statement.
func (tx *Tx) AddFileUses(ctx context.Context, page string, files []string) error {
	files = unique(files)
	for len(files) > 0 {
		batch := files[:min(len(files), 100)]
		files = files[len(batch):]
		var args []any
		var q strings.Builder
		q.WriteString(`INSERT INTO file_uses (file_id, page_id) VALUES `)
		for i, f := range batch {
			if i > 0 {
				q.WriteByte(',')
			}
			// Parameters in order of appearance: SQLite's "?" are numbered that way.
			args = append(args, f, page)
			q.WriteString("(" + tx.placeholder(len(args)-1) + ", " + tx.placeholder(len(args)) + ")")
		}
		q.WriteString(` ON CONFLICT (file_id, page_id) DO NOTHING`)
		if _, err := tx.tx.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// FileUses returns up to limit pages that use file id, after page id after (keyset on the
// primary key).
func (s *Store) FileUses(ctx context.Context, id, after string, limit int) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT page_id FROM file_uses WHERE file_id = $1 AND page_id > $2
		ORDER BY page_id LIMIT $3`, id, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// QueryRowForTest runs a query in the transaction. Tests use it to inspect rows that no read
// method returns.
func (tx *Tx) QueryRowForTest(ctx context.Context, query string, args ...any) *sql.Row {
	return tx.tx.QueryRowContext(ctx, query, args...)
}
