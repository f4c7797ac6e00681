package search

import (
	"context"
	"maps"

	"github.com/quire-dev/quire/internal/sqlq"
)

// On SQLite the trigram indexes are filled in the background (migration 00027,
// store/search_index_tail.go): an entry is in search_fts (and, a title, in search_title_fts)
// exactly when its rid is at most search_fts_mark.rid. The entries above the mark are the few
// written since the store's upkeep loop last ran (it runs a quarter second after writes), so a
// lookup on the indexes adds them, read by substring on search_docs' primary key from the mark
// on. A search that walks the nodes reads search_docs itself and needs nothing more; a list
// from the indexes is complete only with them.

// withUnindexed adds to set the nodes with an entry above the mark (the titles with titles,
// else the block entries) that holds every term, and returns set. On PostgreSQL every entry is
// in its index (the GIN index's pending list is read by every search): set is returned as is.
//
// The tail is read once a search, titles and blocks together (unindexedOf), and kept for the
// run: a search asks the titles' index and then the blocks', each list needing its tail, and
// a second statement for the same few rows cost as much as the first (issue 15).
func (r *run) withUnindexed(ctx context.Context, terms []string, titles bool, set map[string]bool) (map[string]bool, error) {
	if r.d != SQLite {
		return set, nil
	}
	if r.tail == nil {
		tail, err := r.unindexedOf(ctx, terms)
		if err != nil {
			return nil, err
		}
		r.tail = &tail
	}
	x := 1
	if titles {
		x = 0
	}
	maps.Copy(set, r.tail[x])
	return set, nil
}

// unindexedOf reads the nodes with an entry above the mark that holds every term: those of a
// title ([0]) and those of a block ([1]). A run's terms do not change, so this is read once.
func (r *run) unindexedOf(ctx context.Context, terms []string) (tail [2]map[string]bool, err error) {
	tail = [2]map[string]bool{{}, {}}
	a := sqlq.NewArgs()
	rows, err := r.db.QueryContext(ctx, `SELECT d.field = 'body', d.node_id FROM search_docs d
		WHERE d.rid > (SELECT rid FROM search_fts_mark) AND d.field IN ('title', 'body') AND `+r.all("d.text", terms, a), a.List...)
	if err != nil {
		return tail, err
	}
	defer rows.Close()
	for rows.Next() {
		var body bool
		var id string
		if err := rows.Scan(&body, &id); err != nil {
			return tail, err
		}
		x := 0
		if body {
			x = 1
		}
		tail[x][id] = true
	}
	return tail, rows.Err()
}
