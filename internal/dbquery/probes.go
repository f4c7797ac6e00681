package dbquery

import (
	"context"
	"fmt"
	"time"
)

// ProbeLimit is the most matches a condition may have for Page to read its records by id and
// sort them, rather than walk the database in the query's order. Walking costs about page_size
// × records / matches probes, so on a large database a sparse condition (a title equals, a
// relation contains, a date range, a text no record contains) would read every record.
const ProbeLimit = 1000

// Probe is a statement that lists the record ids matching one top-level condition of a query,
// at most ProbeLimit+1 of them, read from that property's index.
type Probe struct {
	Stmt
	Cond Cond
}

// Probes returns the probes Page runs before the query: one per top-level condition (the
// filter itself, or its And members) that a record matches by having a value that passes a
// test (not the negative operators, not is_empty, not the timestamps kept on nodes). Equalities
// and ranges come first; text patterns, which scan the property's whole index when they match
// little, come last.
func Probes(d Dialect, q Query) ([]Probe, error) {
	dl, ok := dialects[d]
	if !ok {
		return nil, fmt.Errorf("dbquery: unknown dialect %q", d)
	}
	var conds []Cond
	switch f := q.Filter.(type) {
	case Cond:
		conds = []Cond{f}
	case And:
		for _, m := range f {
			if c, ok := m.(Cond); ok {
				conds = append(conds, c)
			}
		}
	}
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	var first, last []Probe
	for _, e := range conds {
		if _, onNode := nodeColumn[e.Type]; onNode {
			continue
		}
		c := compiler{b: newBuilder(dl), now: now, rid: "v.record_id"}
		c.b.arg(q.DatabaseID)
		prop := c.b.arg(e.PropertyID)
		pred, neg, _ := c.valuePred(e)
		if neg || pred == "" {
			continue
		}
		c.b.w("SELECT v.record_id FROM record_values v WHERE v.database_id = $1 AND v.property_id = ", prop,
			" AND ", pred, " LIMIT ", c.b.arg(int64(ProbeLimit+1)))
		p := Probe{Stmt: Stmt{SQL: c.b.sb.String(), Args: c.b.args}, Cond: e}
		if families[e.Type][e.Op] == argText && e.Op != "equals" {
			last = append(last, p)
		} else {
			first = append(first, p)
		}
	}
	return append(first, last...), nil
}

// narrow runs q's probes until one finds at most ProbeLimit records, and returns their ids;
// ok is false when every condition matches more (or none can be probed).
func narrow(ctx context.Context, db Queryer, d Dialect, q Query) (ids []string, ok bool, err error) {
	probes, err := Probes(d, q)
	if err != nil {
		return nil, false, err
	}
	for _, p := range probes {
		rows, err := db.QueryContext(ctx, p.SQL, p.Args...)
		if err != nil {
			return nil, false, err
		}
		seen := make(map[string]bool)
		ids = ids[:0]
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, false, err
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, false, err
		}
		if len(seen) <= ProbeLimit {
			return ids, true, nil
		}
	}
	return nil, false, nil
}
