package store

import "github.com/quire-dev/quire/internal/dbquery"

// BeforeWalkQueryForTest is the statement a query runs before its walk on database db, for
// properties props and a pair sorted by sortProp.
func BeforeWalkQueryForTest(db string, props []string, sortProp string, byText bool) (string, []any) {
	return beforeWalkQuery(db, props, dbquery.PairWant{SortProperty: sortProp, ByText: byText}, true)
}
