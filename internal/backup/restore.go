package backup

import (
	"archive/tar"
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/store"
)

// RestoreOptions say where a restore puts file bytes and whether it may replace content.
type RestoreOptions struct {
	FilesDir string // folder for the archived file bytes (DATA/files)
	Force    bool   // replace the content of a store that holds some
	Progress func(format string, args ...any)
}

func (o RestoreOptions) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(format, args...)
	}
}

// ErrNotEmpty is returned when the target store holds content and Force is not set.
var ErrNotEmpty = errors.New("the target store is not empty")

// Restore loads the archive at path into st, a store of either engine opened (and so migrated)
// by this quire. It first reads the whole archive and checks it against its manifest; then it
// writes every row in one transaction, so that a failed restore leaves the store as it was;
// the store's triggers rebuild the keyword index from the rows as they arrive, and one
// statement indexes the blocks once they are all in (restorer.indexBlocks). File bytes go to
// opts.FilesDir, each checked against its checksum before the transaction commits.
func Restore(ctx context.Context, st *store.Store, path string, opts RestoreOptions) (*Manifest, error) {
	// An archive is read whole before anything is written; a store with content is refused
	// before that read, which may be long.
	empty, err := st.Empty(ctx)
	if err != nil {
		return nil, err
	}
	if !empty && !opts.Force {
		return nil, ErrNotEmpty
	}
	m, err := Verify(path)
	if err != nil {
		return nil, err
	}
	opts.progress("archive checked: %d entries, schema version %d, made from a %s store at %s", len(m.Entries), m.SchemaVersion, m.Engine, m.CreatedTime)
	v, err := st.SchemaVersion(ctx)
	if err != nil {
		return nil, err
	}
	if v != m.SchemaVersion {
		return nil, fmt.Errorf("the archive is of schema version %d and this quire's is %d: restore it with the quire that made it (%s), "+
			"then run this one, which migrates the store when it opens it", m.SchemaVersion, v, m.QuireVersion)
	}
	r := &restorer{st: st, m: m, opts: opts, loaded: map[string]int64{}}
	var tail int64 // the keyword entries left above SQLite's full-text mark, as the restore commits them
	err = st.InTx(ctx, func(tx *store.Tx) error {
		if err := r.clear(ctx, tx); err != nil {
			return err
		}
		if err := walk(path, func(h *tar.Header, rd io.Reader) error { return r.entry(ctx, tx, h, rd) }); err != nil {
			return err
		}
		// A PostgreSQL store's events written but not yet read have no position (store/events_stamp.go).
		if err := tx.NumberProvisionalEvents(ctx); err != nil {
			return err
		}
		n, err := tx.SearchTail(ctx)
		tail = n
		return err
	})
	if err != nil {
		r.removeWritten(ctx)
		return nil, err
	}
	opts.progress("committed: %d tables (row counts checked) and %d files", len(m.Tables), len(m.Files))
	// The triggers wrote the keyword entries above SQLite's full-text mark; indexing them now
	// spares the first searches reading them one by one. The restore is committed already, and
	// search is exact either way, so a failure here is only reported. The count is the
	// transaction's: the store's upkeep loop may have indexed some of them first, and
	// IndexSearch returns once none is left either way.
	if _, err := st.IndexSearch(ctx); err != nil {
		opts.progress("keyword index left to the server's background work: %v", err)
	} else if tail > 0 {
		opts.progress("keyword index: %d entries", tail)
	}
	return m, st.Analyze(ctx)
}

type restorer struct {
	st      *store.Store
	m       *Manifest
	opts    RestoreOptions
	local   *filestore.Local
	written []string // file keys this restore created, removed again if it fails
	next    int      // index of the next entry in m.Entries
	queued  bool     // embed_queue was emptied of the triggers' entries
	blocks  bool     // blocks were loaded and their search entries are not written yet
	loaded  map[string]int64
}

// clear empties the tables a restore writes: all of them when replacing content (--force), and
// settings always, since opening the store made it a signing secret of its own. Without
// --force it checks again, inside the transaction, that the store holds no workspace.
func (r *restorer) clear(ctx context.Context, tx *store.Tx) error {
	names := []string{"settings"}
	if r.opts.Force {
		r.opts.progress("replacing the store's content (--force)")
		names = nil
		for _, t := range slices.Backward(tables) {
			names = append(names, t.name)
		}
		// Deleting content makes the triggers delete its index entries and queue the nodes.
		names = append(names, "search_docs", "embed_queue", "embed_log")
	} else if n, err := count(ctx, tx, "workspaces"); err != nil || n > 0 {
		return cmp.Or(err, ErrNotEmpty)
	}
	for _, n := range names {
		if err := tx.Load(ctx, `DELETE FROM `+n); err != nil {
			return fmt.Errorf("empty %s: %w", n, err)
		}
	}
	return nil
}

// count is the number of rows of table name.
func count(ctx context.Context, tx *store.Tx, name string) (int64, error) {
	rows, err := tx.Query(ctx, `SELECT COUNT(*) FROM `+name)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		err = rows.Scan(&n)
	}
	return n, errors.Join(err, rows.Err())
}

// entry restores one archive entry; the manifest is done with already.
func (r *restorer) entry(ctx context.Context, tx *store.Tx, h *tar.Header, rd io.Reader) error {
	if h.Name == manifestName {
		return r.finish(ctx, tx)
	}
	if r.next >= len(r.m.Entries) || r.m.Entries[r.next].Path != h.Name {
		return corrupt("entry %s is not the one checked: the archive changed during the restore", h.Name)
	}
	e := r.m.Entries[r.next]
	r.next++
	s := newSummer()
	tee := io.TeeReader(rd, s)
	var err error
	if name, ok := chunkTable(e.Path); ok {
		if err = r.loadChunk(ctx, tx, name, tee); err == nil {
			r.loaded[name] += e.Rows
			r.opts.progress("%s: %d of %d rows", name, r.loaded[name], r.m.Rows(name))
		}
	} else {
		err = r.putFile(ctx, strings.TrimPrefix(e.Path, "files/"), tee, e.Bytes)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", e.Path, err)
	}
	return s.check(e)
}

// loadChunk inserts a chunk's rows in multi-row statements.
func (r *restorer) loadChunk(ctx context.Context, tx *store.Tx, name string, rd io.Reader) error {
	t, err := tableNamed(name)
	if err != nil {
		return corrupt("%v", err)
	}
	if err := r.sameColumns(t); err != nil {
		return err
	}
	if err := r.indexBlocks(ctx, tx, name); err != nil {
		return err
	}
	if name == "embed_queue" && !r.queued {
		// The triggers queued every restored node; the queue becomes what it was instead, which
		// matches the embeddings carried with it.
		if err := clearQueue(ctx, tx); err != nil {
			return err
		}
		r.queued = true
	}
	per := max(1, 2000/len(t.columns))
	var batch [][]any
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		q, args := r.insert(t, batch)
		batch = batch[:0]
		return tx.Load(ctx, q, args...)
	}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64<<10), chunkBytes+(64<<20))
	line := 0
	for sc.Scan() {
		line++
		vals, err := decodeRow(sc.Bytes(), t.columns)
		if err != nil {
			return corrupt("line %d: %v", line, err)
		}
		if batch = append(batch, vals); len(batch) == per {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return flush()
}

// sameColumns checks that the archive wrote the columns this quire restores.
func (r *restorer) sameColumns(t table) error {
	for _, ti := range r.m.Tables {
		if ti.Name == t.name {
			if !slices.Equal(ti.Columns, t.columns) {
				return fmt.Errorf("table %s: the archive's columns differ from this quire's", t.name)
			}
			return nil
		}
	}
	return corrupt("table %s is not in the manifest", t.name)
}

// insert builds one multi-row INSERT; SQLite gets plain "?" parameters (see store.placeholder).
func (r *restorer) insert(t table, batch [][]any) (string, []any) {
	var sb strings.Builder
	sb.WriteString("INSERT INTO " + t.name + " (" + t.columnList() + ") VALUES ")
	args := make([]any, 0, len(batch)*len(t.columns))
	for i, row := range batch {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteByte('(')
		for j, v := range row {
			if j > 0 {
				sb.WriteString(", ")
			}
			args = append(args, v)
			if r.st.Engine() == store.SQLite {
				sb.WriteByte('?')
			} else {
				sb.WriteString("$" + strconv.Itoa(len(args)))
			}
		}
		sb.WriteByte(')')
	}
	return sb.String(), args
}

// putFile writes one file's bytes into the files folder.
func (r *restorer) putFile(ctx context.Context, key string, rd io.Reader, size int64) error {
	if r.local == nil {
		local, err := filestore.NewLocal(r.opts.FilesDir)
		if err != nil {
			return err
		}
		r.local = local
	}
	existed := r.local.Exists(key)
	if err := r.local.Put(ctx, key, rd, size, ""); err != nil {
		return err
	}
	if !existed {
		r.written = append(r.written, key)
	}
	return nil
}

// finish runs at the manifest, the last entry: every entry was restored and every table has
// the rows the manifest counts.
func (r *restorer) finish(ctx context.Context, tx *store.Tx) error {
	if r.next != len(r.m.Entries) {
		return corrupt("the archive changed during the restore: %d of %d entries read", r.next, len(r.m.Entries))
	}
	if err := r.indexBlocks(ctx, tx, ""); err != nil {
		return err
	}
	if !r.queued {
		if err := clearQueue(ctx, tx); err != nil {
			return err
		}
	}
	for _, t := range r.m.Tables {
		n, err := count(ctx, tx, t.Name)
		if err != nil {
			return err
		}
		if n != t.Rows {
			return fmt.Errorf("table %s holds %d rows after the restore, the archive %d", t.Name, n, t.Rows)
		}
	}
	return nil
}

// indexBlocks writes the search entries of the loaded blocks once the archive moves past them to
// table next ("" at the end): one statement over the whole table (store.Tx.IndexBlocks), where a
// per-row trigger used to index each row as it arrived. It runs before embed_queue is loaded,
// since the entries queue their pages as the triggers did, and the carried queue replaces that.
func (r *restorer) indexBlocks(ctx context.Context, tx *store.Tx, next string) error {
	if next == "blocks" {
		r.blocks = true
		return nil
	}
	if !r.blocks {
		return nil
	}
	r.blocks = false
	if err := tx.IndexBlocks(ctx); err != nil {
		return fmt.Errorf("search entries of the blocks: %w", err)
	}
	return nil
}

// removeWritten takes back the file bytes a failed restore wrote.
func (r *restorer) removeWritten(ctx context.Context) {
	for _, k := range r.written {
		_ = r.local.Remove(ctx, k)
	}
}

// clearQueue empties the embedding queue and its log (migration 00022) of what the triggers
// queued as rows arrived.
func clearQueue(ctx context.Context, tx *store.Tx) error {
	for _, q := range []string{`DELETE FROM embed_queue`, `DELETE FROM embed_log`} {
		if err := tx.Load(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
