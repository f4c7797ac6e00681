package search

import (
	"context"
	"sync"
)

// Samples keeps, across searches on one SQLite store, the first rowids of each sampled trigram's
// list in the two trigram indexes (trigramPlans): sampling them was a tenth of a search for a
// word in 0.6% of 100,000 paragraphs (issue 15, 2026-11-28), eight FTS5 queries set up for a
// four-trigram word, where a search that finds them here reads one row of counters instead.
//
// They are statistics, never an answer: a plan made from them chooses which pieces FTS5 is asked
// for and how far the lookup reads, and every plan answers the same. Still they are kept exact:
// they are valid for one state of the indexes (sampleVersion: both indexes' FTS5 structure
// records, read in the search's own snapshot), and a search that reads another state drops
// them all. Every write to an FTS5 index (a batch of the tail, which moves the mark with it; a
// delete or an update at or below the mark; a merge) rewrites its structure record, whose
// write counter grows with every write (FTS5 starts it again only on 'rebuild', which only a
// migration runs, before a server reads), so a state is not seen twice; a server sharing the
// file sees another's writes by the same read. Were a state ever taken for another, a plan
// would read more or fewer entries than it might, and answer the same.
//
// Memory: at most maxSampledGrams trigrams, each two lists of at most trigramSample rowids
// (512 bytes) and its key: about 2.5 MB a store at most.
type Samples struct {
	mu      sync.Mutex
	version string
	lists   map[string][2][]int64 // by trigram: the first rowids in search_title_fts, search_fts
}

// maxSampledGrams bounds the trigrams a Samples keeps; past it, it starts again empty.
const maxSampledGrams = 4096

// NewSamples returns an empty Samples.
func NewSamples() *Samples { return &Samples{lists: map[string][2][]int64{}} }

// sampleVersionSQL reads the highest rowid of any entry (the span of the lists' rowids, not
// part of the state: entries above the mark are in neither index) and the state of the
// indexes. FTS5 keeps a table's structure record at id 10 of its %_data table.
const sampleVersionSQL = `SELECT (SELECT COALESCE(MAX(rid), 0) FROM search_docs),
	hex((SELECT block FROM search_title_fts_data WHERE id = 10)) || ':' || hex((SELECT block FROM search_fts_data WHERE id = 10))`

// sampleVersion reads the top rowid and the indexes' state (sampleVersionSQL).
func (r *run) sampleVersion(ctx context.Context) (top int64, version string, err error) {
	err = r.db.QueryRowContext(ctx, sampleVersionSQL).Scan(&top, &version)
	return max(top, 1), version, err
}

// get returns the kept lists of grams under version (found[i] false where not kept).
func (s *Samples) get(version string, grams []string) (lists [][2][]int64, found []bool) {
	lists, found = make([][2][]int64, len(grams)), make([]bool, len(grams))
	if s == nil {
		return lists, found
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version != version {
		return lists, found
	}
	for i, g := range grams {
		lists[i], found[i] = s.lists[g]
	}
	return lists, found
}

// put keeps the lists of grams, read under version; a newer version than the kept one (or an
// older one: a search's snapshot may predate another's) replaces them all.
func (s *Samples) put(version string, grams []string, lists [][2][]int64) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version != version || len(s.lists)+len(grams) > maxSampledGrams {
		s.version, s.lists = version, map[string][2][]int64{}
	}
	for i, g := range grams {
		s.lists[g] = lists[i]
	}
}
