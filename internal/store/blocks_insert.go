package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/sqlq"
)

// The columns of a new block: those that differ from block to block, then those every block of
// one write usually shares (the same page, author, time, version and trash state).
const (
	blockOwnColumns    = `id, parent_id, position, type, content, has_children`
	blockSharedColumns = `workspace_id, page_id, in_trash, version, created_ms, created_by, edited_ms, edited_by`
	blockOwnCount      = 6
	blockSharedCount   = 8
)

// insertBlocksTexts caches the INSERT texts of insertBlocksStatement: one per row count up to
// 100, and one with the search entries' WITH (keyed by the count negated), about 700 KB in all
// (a 100-row text is 6 KB).
var insertBlocksTexts sync.Map // rows → string

// insertBlocksStatement is the INSERT of batch (at most 100 blocks) and its arguments. On
// PostgreSQL, when the blocks share the columns of blockSharedColumns, as every block of an
// append, an import or a Markdown write does, those are bound once and each row refers to them
// by number: 6 values a block instead of 14. An append of 100 paragraphs sent 1,400 values, 700
// of them the same five ids (18 KB of its 75 KB message), each parsed by the server. SQLite
// keeps a value per column and row: its driver looks a numbered parameter up by its name, one
// by one, and the shared form measured no faster there ("Append, fifth pass").
//
// In the shared form the statement also writes the blocks' search entries whose text Go reads
// as PostgreSQL does (search.BlockTextPostgres), by a data-modifying WITH from two arrays, and
// the statement trigger computes only the rest: it skips a block that has an entry (00040).
// The trigger's per-block call of quire_content_text was a quarter of its CPU ("PostgreSQL
// append, thirteenth pass").
func (tx *Tx) insertBlocksStatement(batch []*quire.Block) (string, []any) {
	if tx.engine == SQLite {
		return tx.insertBlocksEach(batch)
	}
	f := batch[0]
	for _, b := range batch[1:] {
		if b.WorkspaceID != f.WorkspaceID || b.PageID != f.PageID || b.InTrash != f.InTrash || b.Version != f.Version ||
			b.CreatedMs != f.CreatedMs || b.CreatedBy != f.CreatedBy || b.EditedMs != f.EditedMs || b.EditedBy != f.EditedBy {
			return tx.insertBlocksEach(batch)
		}
	}
	args := make([]any, 0, blockSharedCount+len(batch)*blockOwnCount)
	args = append(args, f.WorkspaceID, f.PageID, f.InTrash, f.Version, f.CreatedMs, f.CreatedBy, f.EditedMs, f.EditedBy)
	for _, b := range batch {
		args = append(args, b.ID, b.ParentID, b.Position, b.Type, jsonArg(b.Content), b.HasChildren)
	}
	refs, texts := entriesOf(batch)
	if len(refs) > 0 {
		args = append(args, refs, texts)
	}
	key := len(batch)
	if len(refs) > 0 {
		key = -key
	}
	if q, ok := insertBlocksTexts.Load(key); ok {
		return q.(string), args
	}
	var shared strings.Builder
	for c := range blockSharedCount {
		shared.WriteString(", $" + strconv.Itoa(c+1))
	}
	var sb strings.Builder
	if len(refs) > 0 {
		// $2 is the blocks' page; the arrays follow the blocks' values.
		n := blockSharedCount + len(batch)*blockOwnCount
		sb.WriteString(`WITH entries AS (INSERT INTO search_docs (ref, node_id, field, text)
	SELECT e.ref, $2, 'body', e.text FROM unnest($` + strconv.Itoa(n+1) + `::text[], $` + strconv.Itoa(n+2) + `::text[]) AS e (ref, text))
`)
	}
	sb.WriteString(`INSERT INTO blocks (` + blockOwnColumns + `, ` + blockSharedColumns + `) VALUES `)
	for i := range batch {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteByte('(')
		for c := range blockOwnCount {
			if c > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString("$" + strconv.Itoa(blockSharedCount+i*blockOwnCount+c+1))
		}
		sb.WriteString(shared.String() + ")")
	}
	q, _ := insertBlocksTexts.LoadOrStore(key, sb.String())
	return q.(string), args
}

// entriesOf returns the ids and texts of the search entries of batch (blocks of one page) that
// Go reads as the trigger would: blocks out of trash with text, child pages and databases
// aside, as the trigger selects them.
func entriesOf(batch []*quire.Block) (refs, texts []string) {
	for _, b := range batch {
		if b.InTrash || b.Type == "child_page" || b.Type == "child_database" {
			continue
		}
		if text, ok := search.BlockTextPostgres(b.Content); ok && text != "" {
			refs = append(refs, b.ID)
			texts = append(texts, text)
		}
	}
	return refs, texts
}

// insertBlocksEach is the INSERT of batch with every column of every block bound: SQLite's, and
// PostgreSQL's for blocks that do not share blockSharedColumns.
func (tx *Tx) insertBlocksEach(batch []*quire.Block) (string, []any) {
	const cols = blockOwnCount + blockSharedCount
	var sb strings.Builder
	sb.WriteString(`INSERT INTO blocks (` + blockOwnColumns + `, ` + blockSharedColumns + `) VALUES `)
	args := make([]any, 0, len(batch)*cols)
	for i, b := range batch {
		if i > 0 {
			sb.WriteString(", ")
		}
		tx.values(&sb, i*cols, cols)
		args = append(args, b.ID, b.ParentID, b.Position, b.Type, jsonArg(b.Content), b.HasChildren,
			b.WorkspaceID, b.PageID, b.InTrash, b.Version, b.CreatedMs, b.CreatedBy, b.EditedMs, b.EditedBy)
	}
	return sb.String(), args
}

// indexBlocksSQL writes the search entries of the blocks that %s selects (b is blocks) with
// SQLite's own reading of their JSON: the expression of the per-row insert trigger that 00034
// dropped, which is also what search.BlockText computes where it can. Blocks in trash and the
// blocks of child pages and databases have none, nor a block without text.
const indexBlocksSQL = `INSERT INTO search_docs (ref, node_id, field, text)
	SELECT id, page_id, 'body', t FROM (
		SELECT b.id, b.page_id, (SELECT group_concat(value, ' ') FROM json_tree(b.content)
			WHERE key IN ('plain_text', 'expression') AND type = 'text') AS t
		FROM blocks b WHERE %s AND b.in_trash = FALSE AND b.type NOT IN ('child_page', 'child_database'))
	WHERE t <> ''`

// indexLeftBlocks writes the entries of new blocks ids that indexNewBlocks left (SQLite), after
// the blocks: the few whose JSON Go does not read exactly as SQLite does. It adds the pages it
// wrote entries for to queue.
func (tx *Tx) indexLeftBlocks(ctx context.Context, ids, queue []string) ([]string, error) {
	if len(ids) == 0 {
		return queue, nil
	}
	a := sqlq.NewArgs()
	return tx.indexBlocksWhere(ctx, `b.id IN (`+sqlq.In(a, ids)+`)`, a.List, queue)
}

// indexBlocksWhere runs indexBlocksSQL over the blocks that where selects and adds the nodes of
// the entries it wrote to queue.
func (tx *Tx) indexBlocksWhere(ctx context.Context, where string, args []any, queue []string) ([]string, error) {
	rows, err := tx.tx.QueryContext(ctx, fmt.Sprintf(indexBlocksSQL, where)+` RETURNING node_id`, args...)
	if err != nil {
		return queue, err
	}
	defer rows.Close()
	// A restore indexes a whole workspace here, thousands of pages: a set, not addNode's scan.
	seen := make(map[string]bool, len(queue))
	for _, n := range queue {
		seen[n] = true
	}
	for rows.Next() {
		var node string
		if err := rows.Scan(&node); err != nil {
			return queue, err
		}
		if !seen[node] {
			seen[node] = true
			queue = append(queue, node)
		}
	}
	return queue, rows.Err()
}

// IndexBlocks writes the search entries of every block that has none, for blocks loaded by a
// plain INSERT (a restore, a bulk load in a test), and queues their pages: on SQLite no trigger
// indexes a new block (00034) or queues its page (00039), the store's insert does. On PostgreSQL
// nothing, since its statement triggers indexed and queued the rows as they were inserted.
func (tx *Tx) IndexBlocks(ctx context.Context) error {
	if tx.engine != SQLite {
		return nil
	}
	queue, err := tx.indexBlocksWhere(ctx, `NOT EXISTS (SELECT 1 FROM search_docs d WHERE d.ref = b.id)`, nil, nil)
	if err != nil {
		return err
	}
	return tx.queueNodes(ctx, queue)
}
