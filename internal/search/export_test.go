package search

import "context"

// PlanTrigramsForTest is planTrigrams on SQLite: the pieces FTS5 is asked for, the terms
// verified by substring, and whether some trigram occurs nowhere.
func PlanTrigramsForTest(ctx context.Context, db Queryer, fts string, terms []string) (pieces, verify []string, none bool, err error) {
	p, err := (&run{db: db, d: SQLite}).planTrigrams(ctx, fts, terms)
	return p.pieces, p.verify, p.none, err
}
