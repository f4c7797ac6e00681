package dbquery

import (
	"context"
	"errors"
	"slices"
)

// A pair is a composite index of one database for one filter property F and one sort property
// S (the store's record_pairs, migration 00019): per record and text value of F, that value,
// the record's sort value of S and the record id, ordered by (pair, value, sort value, record).
// A query whose filter is "F equals X" (or has it among its top-level And members) and whose
// only sort is S reads the page from that index in order: page_size + 1 entries when nothing
// else filters, where the walk of S's own index checked each record's F, about records/matches
// records per row of the page.

// Pair is a registered composite index the store found for a query (see PairWanted).
type Pair struct {
	ID   int64
	Cond Cond // the top-level condition on F that the index answers
}

// PairWant describes the pairs that could answer a query: its sort property and column, and
// the top-level conditions an index of F answers, in the filter's order.
type PairWant struct {
	SortProperty string
	ByText       bool // the sort column is v_text (else v_num)
	Conds        []Cond
}

// PairWanted reports which pairs could answer q: ok is false when none could (no single
// property sort, or no top-level condition that is an equality on a row's text).
func PairWanted(q Query) (w PairWant, ok bool) {
	if len(q.Sorts) != 1 || onNode(q.Sorts[0]) || q.Within != nil {
		return PairWant{}, false
	}
	s := q.Sorts[0]
	w = PairWant{SortProperty: s.PropertyID, ByText: sortColumn[s.Type] == "v_text"}
	for _, c := range topConds(q.Filter) {
		if pairable(c) && c.PropertyID != s.PropertyID {
			w.Conds = append(w.Conds, c)
		}
	}
	return w, len(w.Conds) > 0
}

// topConds lists the filter's top-level conditions: the filter itself, or its And's members.
func topConds(f Expr) []Cond {
	switch f := f.(type) {
	case Cond:
		return []Cond{f}
	case And:
		var out []Cond
		for _, m := range f {
			if c, ok := m.(Cond); ok {
				out = append(out, c)
			}
		}
		return out
	}
	return nil
}

// pairable reports whether e matches a record exactly when one of its rows of the property has
// v_text equal to e's value: what a pair's f_value answers.
func pairable(e Cond) bool {
	if _, onNode := nodeColumn[e.Type]; onNode {
		return false
	}
	switch families[e.Type][e.Op] {
	case argText:
		return e.Op == "equals"
	case argOption:
		return e.Op == "equals" || e.Op == "contains"
	case argID:
		return e.Op == "contains"
	}
	return false
}

// without returns filter f less its top-level condition c (first occurrence): what a pair's
// walk still checks on each record.
func without(f Expr, c Cond) Expr {
	switch f := f.(type) {
	case Cond:
		if f == c {
			return nil
		}
	case And:
		for i, m := range f {
			if mc, ok := m.(Cond); ok && mc == c {
				return slices.Delete(slices.Clone(f), i, i+1)
			}
		}
	}
	return f
}

// byPair walks a pair's index (record_pairs) in the order of the sort property, joining each
// entry's record; as bySortProperty, whose order, positions and Then it shares, so a walk may
// switch between the two plans from one page to the next. Once the walk is exhausted (empty),
// the records without a sort value are read from the condition's own index, not by walking the
// whole database: a walk that ran out read every match already, so this costs as much again.
func (c *compiler) byPair(q Query, empty bool) (Stmt, error) {
	b, s, p := c.b, q.Sorts[0], q.Pair
	if !pairable(p.Cond) || !slices.Contains(topConds(q.Filter), p.Cond) {
		return Stmt{}, errors.New("dbquery: Pair is not a top-level condition of the filter")
	}
	rest := without(q.Filter, p.Cond)
	if empty {
		b.w("WITH w (id) AS (SELECT v.record_id ")
		c.matching(p.Cond)
		b.w(")\nSELECT n.id\nFROM w CROSS JOIN nodes n\nWHERE n.id = w.id AND ", nodeScope,
			"\n  AND NOT EXISTS (SELECT 1 FROM record_values s WHERE s.record_id = n.id AND s.property_id = ", b.arg(s.PropertyID),
			" AND s.", sortColumn[s.Type], " IS NOT NULL)")
		if q.After.ID != "" {
			b.w("\n  AND n.id ", gt(s.Descending), " ", b.arg(q.After.ID))
		}
		c.filter(rest)
		b.w("\nORDER BY n.id", dir(s.Descending))
		return c.finish(q, nil, nil, 1), nil
	}
	col := "s_num"
	if sortColumn[s.Type] == "v_text" {
		col = "s_text"
	}
	sk := "p." + col
	c.rid = "p.record_id"
	b.w("SELECT n.id, ", sk, c.fetching(q), "\nFROM record_pairs p ", b.d.pairJoin,
		"\nWHERE p.pair_id = ", b.arg(p.ID), " AND p.f_value = ", b.arg(p.Cond.Value.(string)), " AND ", sk, " IS NOT NULL",
		b.d.pairOn)
	if q.After != nil {
		b.w("\n  AND (", sk, ", p.record_id) ", gt(s.Descending), " (", b.arg(q.After.Keys[0].value()), ", ", b.arg(q.After.ID), ")")
	}
	c.filter(rest)
	b.w("\nORDER BY ", sk, dir(s.Descending), ", p.record_id", dir(s.Descending))
	return c.finish(q, &Position{Keys: []Key{{}}}, []string{sortColumn[s.Type]}, 1), nil
}

// PairKeysQuery reads the pairs registered for a sort: $1 the database, $2 the sort property,
// $3 by_text; each row a filter property and its pair's id (ChoosePair picks among them). The
// store runs it beside its other reads before the walk, in one statement.
const PairKeysQuery = `SELECT filter_prop, id FROM record_pair_keys
		WHERE database_id = $1 AND sort_prop = $2 AND by_text = $3`

// FindPair returns the registered pair that answers q (nil when none is), read in db, the
// query's transaction: a pair registered by another server is seen at once, and one read in
// the same snapshot as the walk always has all its rows (they are written with it).
func FindPair(ctx context.Context, db Queryer, q Query) (*Pair, error) {
	w, ok := PairWanted(q)
	if !ok {
		return nil, nil
	}
	rows, err := db.QueryContext(ctx, PairKeysQuery, q.DatabaseID, w.SortProperty, w.ByText)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := map[string]int64{}
	for rows.Next() {
		var prop string
		var id int64
		if err := rows.Scan(&prop, &id); err != nil {
			return nil, err
		}
		ids[prop] = id
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return w.Choose(ids), nil
}

// Choose returns the pair that answers the query w was made from, among ids (filter property →
// pair id: PairKeysQuery's rows), or nil: its first condition that has one.
func (w PairWant) Choose(ids map[string]int64) *Pair {
	for _, c := range w.Conds {
		if id, ok := ids[c.PropertyID]; ok {
			return &Pair{ID: id, Cond: c}
		}
	}
	return nil
}
