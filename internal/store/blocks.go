package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/sqlq"
)

// blockColumns are a block's columns; has_children is stored, kept by the writes
// (blocks_children.go).
const blockColumns = `b.id, b.workspace_id, b.page_id, b.parent_id, b.position, b.type, b.content,
	b.has_children, b.in_trash, b.version, b.created_ms, b.created_by, b.edited_ms, b.edited_by`

func scanBlock(row interface{ Scan(...any) error }) (*quire.Block, error) {
	b := &quire.Block{}
	var content []byte
	err := row.Scan(&b.ID, &b.WorkspaceID, &b.PageID, &b.ParentID, &b.Position, &b.Type, &content,
		&b.HasChildren, &b.InTrash, &b.Version, &b.CreatedMs, &b.CreatedBy, &b.EditedMs, &b.EditedBy)
	b.Content = content
	return b, err
}

// Block returns block id of workspace ws, or not_found.
func (s *Store) Block(ctx context.Context, ws, id string) (*quire.Block, error) {
	return block(ctx, s.hot(), ws, id)
}

// Block reads a block inside the transaction, its has_children settled first.
func (tx *Tx) Block(ctx context.Context, ws, id string) (*quire.Block, error) {
	if err := tx.settleChildren(ctx); err != nil {
		return nil, err
	}
	return block(ctx, tx.tx, ws, id)
}

func block(ctx context.Context, q querier, ws, id string) (*quire.Block, error) {
	b, err := scanBlock(q.QueryRowContext(ctx, `SELECT `+blockColumns+` FROM blocks b WHERE b.id = $1 AND b.workspace_id = $2`, id, ws))
	if err != nil {
		return nil, notFoundIf(err, "block "+id)
	}
	return b, nil
}

// ChildKey is the keyset position of a block among its siblings.
type ChildKey struct {
	Position string `json:"p"`
	ID       string `json:"i"`
}

// Children returns up to limit blocks under parent (a page, database or block) in order, after
// key when set, leaving out blocks in trash. It walks the (parent_id, position, id) index. It
// reads only what a listing shows (childColumns): each block's ParentID is parent and InTrash
// false, but WorkspaceID, PageID and Version are left empty for the caller, which knows the
// first two (the children of a block are in its page, a page's are its own).
func (s *Store) Children(ctx context.Context, parent string, after *ChildKey, limit int) ([]*quire.Block, error) {
	if i, _ := slices.BinarySearch(childLimits, limit); s.raw != nil && i < len(childLimits) {
		return s.rawChildren(ctx, parent, after, limit, childLimits[i])
	}
	if s.pg != nil {
		return s.pgChildren(ctx, parent, after, limit)
	}
	return children(ctx, s.hot(), s.engine, parent, after, limit)
}

// Children reads children inside the transaction, their has_children settled first.
func (tx *Tx) Children(ctx context.Context, parent string, after *ChildKey, limit int) ([]*quire.Block, error) {
	if err := tx.settleChildren(ctx); err != nil {
		return nil, err
	}
	return children(ctx, tx.tx, tx.engine, parent, after, limit)
}

// The children of $1 out of trash, in order, at most $2, from the start or after ($3, $4): on
// the (parent_id, position, id) index.
const (
	childrenSelect = `SELECT ` + childColumns + ` FROM blocks b WHERE b.parent_id = $1 AND b.in_trash = FALSE`
	childrenFirst  = childrenSelect + ` ORDER BY b.position, b.id LIMIT $2`
	childrenAfter  = childrenSelect + ` AND (b.position, b.id) > ($3, $4) ORDER BY b.position, b.id LIMIT $2`
)

// SQLite's children statements end in a literal LIMIT, the first of childLimits at or above the
// rows wanted, and the rows past those are left unread (SQLite steps a result lazily): SQLite
// compiles a prepared statement again every time a bound LIMIT is bound, since its value may
// change the plan, which undid the statement's preparation. The parameters are $1 and, after a
// key, ($2, $3).
var (
	childLimits                                = []int{21, 101, 501}
	childrenFirstLiteral, childrenAfterLiteral = literalChildren()
)

func literalChildren() (first, after map[int]string) {
	first, after = map[int]string{}, map[int]string{}
	for _, n := range childLimits {
		limit := ` ORDER BY b.position, b.id LIMIT ` + strconv.Itoa(n)
		first[n] = childrenSelect + limit
		after[n] = childrenSelect + ` AND (b.position, b.id) > ($2, $3)` + limit
	}
	return first, after
}

func children(ctx context.Context, q querier, engine Engine, parent string, after *ChildKey, limit int) ([]*quire.Block, error) {
	var rows *sql.Rows
	var err error
	i, _ := slices.BinarySearch(childLimits, limit)
	switch {
	case engine == SQLite && i < len(childLimits) && after == nil:
		rows, err = q.QueryContext(ctx, childrenFirstLiteral[childLimits[i]], parent)
	case engine == SQLite && i < len(childLimits):
		rows, err = q.QueryContext(ctx, childrenAfterLiteral[childLimits[i]], parent, after.Position, after.ID)
	case after == nil:
		rows, err = q.QueryContext(ctx, childrenFirst, parent, limit)
	default:
		rows, err = q.QueryContext(ctx, childrenAfter, parent, limit, after.Position, after.ID)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	l := newChildList(limit)
	sc := newChildScan()
	for !l.full() && rows.Next() {
		if err := sc.scan(rows, parent, l.next()); err != nil {
			return nil, err
		}
	}
	return l.out, rows.Err()
}

// LastChildPosition is the position of parent's last child, in trash or not ("" when none), so
// that an append goes after everything ever placed there.
func (tx *Tx) LastChildPosition(ctx context.Context, parent string) (string, error) {
	var pos string
	err := tx.queryRow(ctx, lastChildSQL, []any{parent}, func(r sqlq.Scanner) error { return r.Scan(&pos) })
	return pos, err
}

const lastChildSQL = `SELECT COALESCE(MAX(position), '') FROM blocks WHERE parent_id = $1`

// The children of $1 placed after $2: counted, or the last $3 of them listed from the end. A
// range of the children index, which holds both columns read.
const (
	childrenAfterCount = `SELECT COUNT(*) FROM blocks WHERE parent_id = $1 AND position > $2`
	childrenAfterKeys  = `SELECT id, position FROM blocks WHERE parent_id = $1 AND position > $2
		ORDER BY position DESC LIMIT $3`
)

// CountChildrenAfter counts parent's children (in trash or not) placed after pos: a range of the
// children index.
func (tx *Tx) CountChildrenAfter(ctx context.Context, parent, pos string) (int, error) {
	var n int
	err := tx.tx.QueryRowContext(ctx, childrenAfterCount, parent, pos).Scan(&n)
	return n, err
}

// LastOtherChildPosition is the last position of parent's children after pos other than blocks
// own (pos itself when there is none). It walks back from the last child: the first that is
// not one of own is the answer, so at most len(own)+1 are read, however many others wrote.
func (tx *Tx) LastOtherChildPosition(ctx context.Context, parent, pos string, own []string) (string, error) {
	skip := make(map[string]bool, len(own))
	for _, id := range own {
		skip[id] = true
	}
	rows, err := tx.tx.QueryContext(ctx, childrenAfterKeys, parent, pos, len(own)+1)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
		var id, p string
		if err := rows.Scan(&id, &p); err != nil {
			return "", err
		}
		if !skip[id] {
			return p, nil
		}
	}
	return pos, rows.Err()
}

// PlaceBlocks moves blocks ids[i] to positions[i] under their parent, 100 per statement.
func (tx *Tx) PlaceBlocks(ctx context.Context, ids, positions []string) error {
	for start := 0; start < len(ids); start += 100 {
		end := min(start+100, len(ids))
		var sb strings.Builder
		// VALUES names its columns column1, column2 on both engines.
		sb.WriteString(`UPDATE blocks SET position = v.column2 FROM (VALUES `)
		args := make([]any, 0, 2*(end-start))
		for i := start; i < end; i++ {
			if i > start {
				sb.WriteString(", ")
			}
			tx.values(&sb, 2*(i-start), 2)
			args = append(args, ids[i], positions[i])
		}
		sb.WriteString(`) AS v WHERE blocks.id = v.column1`)
		if _, err := tx.tx.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// TouchPage is TouchNode for a write of page id's blocks, which also tells whether the page is
// hidden (in trash, or under a page in trash), read from the row it updates: on PostgreSQL the
// row as locked, so a trash committed while the write waited for the lock is seen. Not found
// when the page is not in workspace ws.
func (tx *Tx) TouchPage(ctx context.Context, ws, id string, ms int64, by string) (hidden bool, err error) {
	err = tx.tx.QueryRowContext(ctx, touchPageSQL, id, ws, ms, by).Scan(&hidden)
	return hidden, notFoundIf(err, "page or database "+id)
}

// touchPageSQL is TouchPage's statement.
const touchPageSQL = `UPDATE nodes SET version = version + 1, edited_ms = $3, edited_by = $4
		WHERE id = $1 AND workspace_id = $2 RETURNING in_trash OR trashed_under`

// TouchPageCounting is TouchPage, then CountChildrenAfter(parent, pos): what an append at the
// end of a page or block does once its blocks are written. On PostgreSQL the two statements go
// to the server in one pipeline, a round trip less ("PostgreSQL append, fourteenth pass" in
// docs/performance.md): the count still runs after the lock is held, on a snapshot of its
// own, so it sees every append to the page that committed while this one waited for the lock,
// as it did sent alone.
func (tx *Tx) TouchPageCounting(ctx context.Context, ws, id string, ms int64, by, parent, pos string) (hidden bool, n int, err error) {
	if tx.conn == nil {
		if hidden, err = tx.TouchPage(ctx, ws, id, ms, by); err != nil {
			return hidden, 0, err
		}
		n, err = tx.CountChildrenAfter(ctx, parent, pos)
		return hidden, n, err
	}
	err = tx.onConn([]string{touchPageSQL, childrenAfterCount}, func(conn *pgx.Conn) error {
		b := &pgx.Batch{}
		if err := tx.tx.batchBegin(b); err != nil {
			return err
		}
		b.Queue(touchPageSQL, id, ws, ms, by).QueryRow(func(r pgx.Row) error { return r.Scan(&hidden) })
		b.Queue(childrenAfterCount, parent, pos).QueryRow(func(r pgx.Row) error { return r.Scan(&n) })
		return conn.SendBatch(tx.tx.within(ctx), b).Close()
	})
	if errors.Is(err, pgx.ErrNoRows) {
		err = sql.ErrNoRows
	}
	return hidden, n, notFoundIf(err, "page or database "+id)
}

// FirstChildPosition is the position of parent's first child ("" when none).
func (tx *Tx) FirstChildPosition(ctx context.Context, parent string) (string, error) {
	var pos string
	err := tx.tx.QueryRowContext(ctx,
		`SELECT COALESCE(MIN(position), '') FROM blocks WHERE parent_id = $1`, parent).Scan(&pos)
	return pos, err
}

// NextPosition is the position of the first sibling after pos under parent ("" when none).
func (tx *Tx) NextPosition(ctx context.Context, parent, pos string) (string, error) {
	var next string
	err := tx.tx.QueryRowContext(ctx,
		`SELECT COALESCE(MIN(position), '') FROM blocks WHERE parent_id = $1 AND position > $2`, parent, pos).Scan(&next)
	return next, err
}

// PrevPosition is the position of the last sibling before pos under parent ("" when none).
func (tx *Tx) PrevPosition(ctx context.Context, parent, pos string) (string, error) {
	var prev string
	err := tx.tx.QueryRowContext(ctx,
		`SELECT COALESCE(MAX(position), '') FROM blocks WHERE parent_id = $1 AND position < $2`, parent, pos).Scan(&prev)
	return prev, err
}

// InsertBlocks stores new blocks with one multi-row statement per 100 blocks, and sets their
// HasChildren as written. On SQLite it writes their search entries too (no trigger does): those
// Go reads before the blocks (indexNewBlocks), the rest by one statement after them; and then
// queues their pages for the semantic indexer, once each (queueNodes). After an
// error the transaction must be rolled back: entries may have been written for blocks that
// were not.
func (tx *Tx) InsertBlocks(ctx context.Context, blocks []*quire.Block) error {
	tx.insertedChildren(blocks)
	var queue []string // SQLite: the nodes of the entries written, to queue for the indexer
	for start := 0; start < len(blocks); start += 100 {
		batch := blocks[start:min(start+100, len(blocks))]
		var left []string
		if tx.engine == SQLite {
			var err error
			if left, queue, err = tx.indexNewBlocks(ctx, batch, queue); err != nil {
				return err
			}
		}
		query, args := tx.insertBlocksStatement(batch)
		bound, err := tx.execBound(ctx, query, args)
		if err == nil && !bound {
			_, err = tx.tx.ExecContext(ctx, query, args...)
		}
		if err != nil {
			return err
		}
		if queue, err = tx.indexLeftBlocks(ctx, left, queue); err != nil {
			return err
		}
	}
	return tx.queueNodes(ctx, queue)
}

// UpdateBlock writes b's content, place and trash state and increments its version, provided
// the stored version is still b.Version (else conflict). When it moves the block, the parent it
// leaves and the one it joins have their has_children settled; when it trashes or restores it,
// its parent; an edit of the content alone settles nothing.
func (tx *Tx) UpdateBlock(ctx context.Context, b *quire.Block) error {
	// The place as stored: a version still b.Version below means nothing moved it since.
	var from string
	var wasTrash bool
	var version int64
	err := tx.tx.QueryRowContext(ctx, `SELECT parent_id, in_trash, version FROM blocks WHERE id = $1`, b.ID).Scan(&from, &wasTrash, &version)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if err != nil || version != b.Version {
		return blockChanged()
	}
	res, err := tx.tx.ExecContext(ctx, `UPDATE blocks SET page_id = $3, parent_id = $4, position = $5, content = $6,
		in_trash = $7, version = version + 1, edited_ms = $8, edited_by = $9 WHERE id = $1 AND version = $2`,
		b.ID, b.Version, b.PageID, b.ParentID, b.Position, jsonArg(b.Content), b.InTrash, b.EditedMs, b.EditedBy)
	if err != nil {
		return err
	}
	if k, _ := res.RowsAffected(); k == 0 {
		return blockChanged()
	}
	switch {
	case from != b.ParentID:
		tx.noteChildren(from, b.ParentID)
	case wasTrash != b.InTrash:
		tx.noteChildren(from)
	}
	b.Version++
	return nil
}

func blockChanged() error {
	return quire.Conflict("The block changed while this request ran; read it again and retry.")
}

// TouchBlock records that a block's children changed (has_children may differ): new version
// and edit time.
func (tx *Tx) TouchBlock(ctx context.Context, id string, ms int64, by string) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE blocks SET version = version + 1, edited_ms = $2, edited_by = $3 WHERE id = $1`, id, ms, by)
	return err
}

// TrashContent puts every content block directly under page (child pages and databases aside)
// in trash, for a replacement of the page's content. Their own children go with them.
func (tx *Tx) TrashContent(ctx context.Context, page string, ms int64, by string) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE blocks SET in_trash = TRUE, version = version + 1, edited_ms = $2, edited_by = $3
		WHERE parent_id = $1 AND in_trash = FALSE AND type NOT IN ('child_page', 'child_database')`, page, ms, by)
	tx.noteChildren(page)
	return err
}

// SyncChildPageBlock keeps the child_page (or child_database) block of node id in step with the
// node: its title and trash state. trashChanged tells that the node went into trash or came
// out: then the block's parent gains or loses a child, and its has_children is settled; a new
// title alone settles nothing, so a rename never writes (nor locks) the parent's row.
func (tx *Tx) SyncChildPageBlock(ctx context.Context, id string, content []byte, inTrash, trashChanged bool, ms int64, by string) error {
	return tx.noteParentOf(trashChanged, tx.tx.QueryRowContext(ctx, `UPDATE blocks SET content = $2, in_trash = $3,
		version = version + 1, edited_ms = $4, edited_by = $5 WHERE id = $1 AND type IN ('child_page', 'child_database')
		RETURNING parent_id`, id, jsonArg(content), inTrash, ms, by))
}

// noteParentOf notes the parent a statement returned, if it wrote a row and note is true.
func (tx *Tx) noteParentOf(note bool, row *sql.Row) error {
	var parent string
	switch err := row.Scan(&parent); {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	if note {
		tx.noteChildren(parent)
	}
	return nil
}

// DetachChildPageBlock removes the child_page (or child_database) block of node id from its
// parent's content, when the node moves. The block is derived from the node, not content of
// its own, so nothing is lost.
func (tx *Tx) DetachChildPageBlock(ctx context.Context, id string) error {
	return tx.noteParentOf(true, tx.tx.QueryRowContext(ctx,
		`DELETE FROM blocks WHERE id = $1 AND type IN ('child_page', 'child_database') RETURNING parent_id`, id))
}

// ChildContent is the part of a block a Markdown export reads.
type ChildContent struct {
	ID, Position, Type string
	Content            []byte
	HasChildren        bool
}

// ChildContents is Children for an export: the same keyset walk, reading only what rendering
// needs (a third of the columns, a third of the allocations per row).
func (s *Store) ChildContents(ctx context.Context, parent string, after *ChildKey, limit int) ([]ChildContent, error) {
	query := `SELECT b.id, b.position, b.type, b.content, b.has_children
		FROM blocks b WHERE b.parent_id = $1 AND b.in_trash = FALSE`
	args := []any{parent, limit}
	if after != nil {
		query += ` AND (b.position, b.id) > ($3, $4)`
		args = append(args, after.Position, after.ID)
	}
	rows, err := s.hot().QueryContext(ctx, query+` ORDER BY b.position, b.id LIMIT $2`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]ChildContent, 0, limit)
	for rows.Next() {
		var c ChildContent
		if err := rows.Scan(&c.ID, &c.Position, &c.Type, &c.Content, &c.HasChildren); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
