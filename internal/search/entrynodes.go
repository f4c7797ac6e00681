package search

import (
	"context"
	"encoding/json"
	"sync"
)

// EntryNodes keeps, across searches on one SQLite store, the node and field of the entries
// (search_docs rids) that FTS5 lookups have listed, so that a lookup asks FTS5 alone for its
// matches instead of seeking each one's row in search_docs: those seeks were a fifth of a search
// for a word in 0.6% of 100,000 paragraphs (issue 15, docs/performance.md, "Keyword search,
// seventh pass"), and the row is wide (its text) where the lookup needs two small columns.
//
// It is a fact, never an answer, and it cannot go stale: search_docs' rids are never reused
// (AUTOINCREMENT, migration 00033), and an entry's node and field never change (a block moved
// to another page is deleted and written again, under a new rid), so a rid names one node and
// field for the life of the store, whichever server wrote it. An entry deleted since is not
// listed by FTS5 any more (its trigger deletes it from the index in the same transaction), so
// a kept rid is only ever read for the entry it was kept for.
//
// Memory: at most maxKeptEntries rids (a map entry of 12 bytes and its overhead) and
// maxKeptNodes node ids with their index: 17 MB of heap a store with both bounds reached
// (measured); past either bound it starts again empty.
type EntryNodes struct {
	mu    sync.Mutex
	byRid map[int64]int32 // the node's index in nodes, negated (less one) for a title entry
	nodes []string
	index map[string]int32
}

const (
	maxKeptEntries = 1 << 18
	maxKeptNodes   = 1 << 16
)

// NewEntryNodes returns an empty EntryNodes.
func NewEntryNodes() *EntryNodes {
	return &EntryNodes{byRid: map[int64]int32{}, index: map[string]int32{}}
}

// entryNode is what a rid names: its node, and whether the entry is the node's title.
type entryNode struct {
	node  string
	title bool
}

// get fills found[i] for each rid of rids that e keeps (ok[i]), and reports how many it does
// not keep.
func (e *EntryNodes) get(rids []int64, found []entryNode, ok []bool) (missing int) {
	if e == nil {
		clear(ok)
		return len(rids)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, rid := range rids {
		x, kept := e.byRid[rid]
		ok[i] = kept
		if !kept {
			missing++
			continue
		}
		found[i].title = x < 0
		if x < 0 {
			x = -x - 1
		}
		found[i].node = e.nodes[x]
	}
	return missing
}

// put keeps the node and field of rids.
func (e *EntryNodes) put(rids []int64, entries []entryNode) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.byRid)+len(rids) > maxKeptEntries || len(e.nodes)+len(rids) > maxKeptNodes {
		e.byRid, e.nodes, e.index = map[int64]int32{}, nil, map[string]int32{}
	}
	for i, rid := range rids {
		x, ok := e.index[entries[i].node]
		if !ok {
			x = int32(len(e.nodes))
			e.nodes = append(e.nodes, entries[i].node)
			e.index[entries[i].node] = x
		}
		if entries[i].title {
			x = -x - 1
		}
		e.byRid[rid] = x
	}
}

// entryNodesSQL reads the node and field of the entries of a JSON array of rids, each by the
// primary key (TestSearchEntryNodesPlans).
const entryNodesSQL = `SELECT d.rid, d.node_id, d.field = 'title' FROM search_docs d
	WHERE d.rid IN (SELECT value FROM json_each($1))`

// entryNodesOf fills found with the node and field of each of rids (ok[i]), from q.EntryNodes
// where it keeps them, else read from search_docs in one statement and kept. A rid with no
// entry (which the triggers never leave in an index) is left out, as the join it replaces did.
func (r *run) entryNodesOf(ctx context.Context, rids []int64, found []entryNode, ok []bool) error {
	if r.q.EntryNodes.get(rids, found, ok) == 0 {
		return nil
	}
	var missing []int64
	at := map[int64]int{}
	for i, rid := range rids {
		if !ok[i] {
			missing = append(missing, rid)
			at[rid] = i
		}
	}
	list, _ := json.Marshal(missing)
	rows, err := r.db.QueryContext(ctx, entryNodesSQL, string(list))
	if err != nil {
		return err
	}
	defer rows.Close()
	read := make([]entryNode, 0, len(missing))
	readRids := make([]int64, 0, len(missing))
	for rows.Next() {
		var rid int64
		var e entryNode
		if err := rows.Scan(&rid, &e.node, &e.title); err != nil {
			return err
		}
		found[at[rid]], ok[at[rid]] = e, true
		read, readRids = append(read, e), append(readRids, rid)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	r.q.EntryNodes.put(readRids, read)
	return nil
}

// ftsChunk is how many matches an FTS5-only lookup reads before it finds their nodes: one
// statement for those not kept, and at most this many read past the lookup's end.
const ftsChunk = 256

// ftsMatches runs query, an FTS5 lookup of rowids alone (when its MATCH is the whole test:
// indexMatches), and gathers the nodes of the matching entries of the field asked (the titles
// with titles, else the blocks) as indexMatches' join of search_docs did: up to entries of
// them, paced every pace with few == fewByPace. dense reports that the lookup passed its bound.
//
// With cands, the MATCH is not the whole test (verifyLater): each node's entries are kept there
// for verified.
func (r *run) ftsMatches(ctx context.Context, query string, args []any, titles bool, entries, pace int, few fewness, cands unverified) (set map[string]bool, dense bool, err error) {
	rows, err := r.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	set = map[string]bool{}
	n := 0
	rids := make([]int64, 0, ftsChunk)
	found, ok := make([]entryNode, ftsChunk), make([]bool, ftsChunk)
	for more := true; more; {
		rids = rids[:0]
		for len(rids) < ftsChunk {
			if more = rows.Next(); !more {
				break
			}
			var rid int64
			if err := rows.Scan(&rid); err != nil {
				return nil, false, err
			}
			rids = append(rids, rid)
		}
		if err := rows.Err(); err != nil {
			return nil, false, err
		}
		if err := r.entryNodesOf(ctx, rids, found[:len(rids)], ok[:len(rids)]); err != nil {
			return nil, false, err
		}
		for i, rid := range rids {
			if !ok[i] || found[i].title != titles {
				continue
			}
			set[found[i].node] = true
			if cands != nil {
				cands[found[i].node] = append(cands[found[i].node], rid)
			}
			n++
			if n >= entries || few == fewByPace && n%pace == 0 && r.paced(n, rid, entries) {
				return nil, true, nil
			}
		}
	}
	return set, false, nil
}

// ftsAlone reports whether SQLite's lookup of terms in the titles' or the blocks' index is
// FTS5's MATCH alone: every term is of three characters or more, each matched by the phrase it
// is looked up by (planTrigrams left nothing to verify by substring), so no entry's text is read.
func (r *run) ftsAlone(terms []string, titles bool) bool {
	if r.d != SQLite || r.trigrams == nil {
		return false
	}
	if _, short := longTerms(terms); len(short) > 0 {
		return false
	}
	return len(r.trigrams[ftsIndex(titles)].verify) == 0
}

// ftsIndex is the index in ftsIndexes of the titles' or the blocks' trigram index.
func ftsIndex(titles bool) int {
	if titles {
		return 0
	}
	return 1
}

// ftsOf is the name of the titles' or the blocks' trigram index.
func ftsOf(titles bool) string { return ftsIndexes[ftsIndex(titles)] }
