package store

import (
	"context"
	"database/sql"
	"fmt"
	"unsafe"

	"github.com/quire-dev/quire/internal/quire"
)

// childColumns are the columns of a listed child. The driver converts every column of every row
// it steps into a Go value (a text column: a copy, a box, and on SQLite three calls that each
// take the connection's mutex), so a listing reads no more than it shows: not the parent's id,
// the page's or the workspace's, the trash flag (false) or the version (no ETag in a list). The
// editor and the edit time are NULL when they equal the creator and the creation time, as for
// every block never edited by someone else after it was written: a NULL costs the driver no
// copy, no box and one call, not three.
const childColumns = `b.id, b.position, b.type, b.content, b.has_children, b.created_ms, b.created_by,
	NULLIF(b.edited_ms, b.created_ms), NULLIF(b.edited_by, b.created_by)`

// childScan reads rows of childColumns. It scans into `any`s, which database/sql assigns as the
// driver gave them (a string, an int64, a bool), where a *string, *int64 or *bool destination
// went through a conversion each (for an integer, through reflection; for the content, a copy).
type childScan struct {
	vals [9]any
	dest [9]any // &vals[i]
}

func newChildScan() *childScan {
	sc := &childScan{}
	for i := range sc.vals {
		sc.dest[i] = &sc.vals[i]
	}
	return sc
}

// scan reads the current row under parent into b.
func (sc *childScan) scan(rows *sql.Rows, parent string, b *quire.Block) error {
	if err := rows.Scan(sc.dest[:]...); err != nil {
		return err
	}
	v := &sc.vals
	var ok [9]bool
	b.ParentID = parent
	b.ID, ok[0] = childText(v[0])
	b.Position, ok[1] = childText(v[1])
	b.Type, ok[2] = childText(v[2])
	b.Content, ok[3] = keep(v[3])
	b.HasChildren, ok[4] = childBool(v[4])
	b.CreatedMs, ok[5] = v[5].(int64)
	b.CreatedBy, ok[6] = childText(v[6])
	b.EditedMs, b.EditedBy, ok[7], ok[8] = b.CreatedMs, b.CreatedBy, true, true
	if v[7] != nil {
		b.EditedMs, ok[7] = v[7].(int64)
	}
	if v[8] != nil {
		b.EditedBy, ok[8] = childText(v[8])
	}
	for i, good := range ok {
		if !good {
			return fmt.Errorf("store: children: column %d is %T", i, v[i])
		}
	}
	return nil
}

// keep returns the content v as bytes that outlive the row. A driver's string is its own copy
// of the value (modernc.org/sqlite and pgx each allocate a fresh one per column and row, and keep
// no reference to it), so its bytes are used as they are rather than copied again: a page of
// 100 paragraphs copied 60 KB twice. Nothing writes into a block's content (it is decoded or
// spliced into an answer), and the slice is capped, so an append copies it first.
func keep(v any) ([]byte, bool) {
	switch v := v.(type) {
	case []byte: // database/sql gives an `any` its own copy of a driver's bytes
		return v, true
	case string:
		if v == "" {
			return nil, true
		}
		return unsafe.Slice(unsafe.StringData(v), len(v)), true
	}
	return nil, false
}

// childText is a text column as the driver gave it: a string (modernc.org/sqlite and pgx both).
func childText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	}
	return "", false
}

// childBool is a boolean column: an integer on SQLite, a boolean on PostgreSQL.
func childBool(v any) (bool, bool) {
	switch v := v.(type) {
	case int64:
		return v != 0, true
	case bool:
		return v, true
	}
	return false, false
}

// childRow is a row of childColumns read below database/sql: rawRow on SQLite, *pgRow on
// PostgreSQL.
type childRow interface {
	mem(i int) []byte // the column's bytes where the row holds them, valid until it moves on
	int64(i int) int64
	boolean(i int) bool
	null(i int) bool
}

// childList collects a listing's blocks, allocated 101 at a time rather than one by one, and
// their texts. A row's id, position and content are copied one after the other into the
// listing's arena, chunks of up to 32 KB, and the block's strings and content are views of
// those bytes; a type, creator or editor equal to the previous row's is that row's string. A
// copy per column (four strings and the content) was five allocations a block, 505 of an
// answer's 609, and a sixth of the children row's CPU over HTTP with the collector's share.
// Nothing writes into the arena's bytes once copied (a block's content is decoded or spliced
// into an answer; it is capped, so an append copies it first), and a chunk is the collector's
// once no block of the listing is referenced.
type childList struct {
	out   []*quire.Block
	free  []quire.Block
	limit int
	arena []byte
	chunk int       // the size of the next chunk: 4 KB, doubling to 32 KB
	last  [3]string // the type, creator and editor of the previous row
}

func newChildList(limit int) *childList {
	return &childList{out: make([]*quire.Block, 0, min(limit, 101)), limit: limit, chunk: 4 << 10}
}

// next is a fresh block appended to the list.
func (l *childList) next() *quire.Block {
	if len(l.free) == 0 {
		l.free = make([]quire.Block, min(l.limit-len(l.out), 101))
	}
	b := &l.free[0]
	l.free = l.free[1:]
	l.out = append(l.out, b)
	return b
}

func (l *childList) full() bool { return len(l.out) >= l.limit }

// bytes is m copied into the arena, capped; nil when empty.
func (l *childList) bytes(m []byte) []byte {
	if len(m) == 0 {
		return nil
	}
	if cap(l.arena)-len(l.arena) < len(m) {
		l.arena = make([]byte, 0, max(l.chunk, len(m)))
		l.chunk = min(2*l.chunk, 32<<10)
	}
	at := len(l.arena)
	l.arena = append(l.arena, m...)
	return l.arena[at:len(l.arena):len(l.arena)]
}

// text is m as a string in the arena.
func (l *childList) text(m []byte) string {
	b := l.bytes(m)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// repeat is m as a string: the previous row's *last when equal (a page's blocks mostly share
// their type and creator), else a new one, kept in *last.
func (l *childList) repeat(m []byte, last *string) string {
	if string(m) != *last { // compared without a conversion
		*last = l.text(m)
	}
	return *last
}

// readChild reads a row of childColumns under parent into the list's next block.
func readChild[R childRow](l *childList, r R, parent string) {
	b := l.next()
	b.ParentID = parent
	b.ID, b.Position = l.text(r.mem(0)), l.text(r.mem(1))
	b.Type = l.repeat(r.mem(2), &l.last[0])
	b.Content = l.bytes(r.mem(3))
	b.HasChildren = r.boolean(4)
	b.CreatedMs, b.CreatedBy = r.int64(5), l.repeat(r.mem(6), &l.last[1])
	b.EditedMs, b.EditedBy = b.CreatedMs, b.CreatedBy
	if !r.null(7) {
		b.EditedMs = r.int64(7)
	}
	if !r.null(8) {
		b.EditedBy = l.repeat(r.mem(8), &l.last[2])
	}
}

// rawChildren is children on SQLite's rawReads, with the statement of literal LIMIT compiled
// (at least limit).
func (s *Store) rawChildren(ctx context.Context, parent string, after *ChildKey, limit, compiled int) ([]*quire.Block, error) {
	query, args := childrenFirstLiteral[compiled], []string{parent}
	if after != nil {
		query, args = childrenAfterLiteral[compiled], []string{parent, after.Position, after.ID}
	}
	l := newChildList(limit)
	err := s.raw.query(ctx, query, args, func(r rawRow) (bool, error) {
		readChild(l, r, parent)
		return !l.full(), nil
	})
	if err != nil {
		return nil, err
	}
	return l.out, nil
}

// pgChildren is children on PostgreSQL's pgRaw: the same statements as through database/sql,
// each row read from pgx's buffer into its block.
func (s *Store) pgChildren(ctx context.Context, parent string, after *ChildKey, limit int) ([]*quire.Block, error) {
	query, args := childrenFirst, []any{parent, limit}
	if after != nil {
		query, args = childrenAfter, []any{parent, limit, after.Position, after.ID}
	}
	l := newChildList(limit)
	err := s.pg.query(ctx, query, args, func(r *pgRow) (bool, error) {
		readChild(l, r, parent)
		return !l.full(), r.failed()
	})
	if err != nil {
		return nil, err
	}
	return l.out, nil
}
