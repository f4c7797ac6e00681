package search

import (
	"context"

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
func (r *run) withUnindexed(ctx context.Context, terms []string, titles bool, set map[string]bool) (map[string]bool, error) {
	if r.d != SQLite {
		return set, nil
	}
	field := "body"
	if titles {
		field = "title"
	}
	a := sqlq.NewArgs()
	rows, err := r.db.QueryContext(ctx, `SELECT d.node_id FROM search_docs d
		WHERE d.rid > (SELECT rid FROM search_fts_mark) AND d.field = '`+field+`' AND `+r.all("d.text", terms, a), a.List...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		set[id] = true
	}
	return set, rows.Err()
}
