package dbquery

import (
	"context"
	"fmt"
	"math"
	"time"
)

// ProbeLimit is the most matches a condition may have for Page to read its records by id and
// sort them, rather than walk the database in the query's order, when the database's size is
// not known (Query.Records). Walking costs about page_size × records / matches probes, so on a
// large database a sparse condition (a title equals, a relation contains, a date range, a text
// no record contains) would read every record.
const ProbeLimit = 1000

// byIDCost is what reading one matching record by id and sorting it costs, in checks of one
// record during a walk (measured on SQLite, 10,000 and 100,000 records: about 12 µs against
// 2.4 µs).
const byIDCost = 5

// probeLimit is the most matches for which reading them by id costs no more than walking:
// byIDCost × matches against the walk's min(records, (pageSize+1) × records / matches) checks,
// matches spread evenly over the order. With records unknown (0), ProbeLimit.
func probeLimit(records, pageSize int) int {
	if records <= 0 {
		return ProbeLimit
	}
	byWalk := math.Sqrt(float64(pageSize+1) * float64(records) / byIDCost)
	return max(1, int(min(float64(records)/byIDCost, byWalk)))
}

// Probe is a statement that counts the records matching one top-level condition of a query, up
// to a limit (its last argument), on that property's index. Each condition a probe is made for
// matches at most one row of a record (options, people and related pages are distinct within a
// value), so it counts records.
type Probe struct {
	Stmt
	Cond Cond
}

// Probes returns the probes Page runs before the query, counting up to limit+1: one per
// top-level condition (the filter itself, or its And members) that a record matches by having a
// value that passes a test (not the negative operators, not is_empty, not the timestamps kept
// on nodes). Equalities and ranges come first; text patterns, which scan the property's whole
// index when they match little, come last.
func Probes(d Dialect, q Query, limit int) ([]Probe, error) {
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
		c := compiler{b: newBuilder(dl), now: now, rid: "v.record_id"}
		c.b.arg(q.DatabaseID)
		c.b.w("SELECT count(*) FROM (SELECT 1 ")
		if !c.matching(e) {
			continue
		}
		c.b.w(" LIMIT ", c.b.arg(int64(limit+1)), ") p")
		p := Probe{Stmt: Stmt{SQL: c.b.sb.String(), Args: c.b.args}, Cond: e}
		if families[e.Type][e.Op] == argText && e.Op != "equals" {
			last = append(last, p)
		} else {
			first = append(first, p)
		}
	}
	return append(first, last...), nil
}

// matching writes the FROM and WHERE of the rows of record_values v that pass condition e. It
// reports false when e cannot be read that way (a negative operator, is_empty or is_not_empty,
// a timestamp kept on the nodes row), and the builder is then to be thrown away.
func (c *compiler) matching(e Cond) bool {
	if _, onNode := nodeColumn[e.Type]; onNode {
		return false
	}
	prop := c.b.arg(e.PropertyID)
	pred, neg, _ := c.valuePred(e)
	if neg || pred == "" {
		return false
	}
	c.b.w("FROM record_values v WHERE v.database_id = $1 AND v.property_id = ", prop, " AND ", pred)
	if families[e.Type][e.Op] == argText && (e.Op == "contains" || e.Op == "ends_with") {
		// SQLite's text index holds only rows with a text (migration 00011), and it does not
		// take a pattern that begins with % to mean one: said outright, it reads the index.
		c.b.w(" AND v.v_text IS NOT NULL")
	}
	return true
}

// probeable reports whether Probes makes a probe of condition e.
func probeable(e Cond) bool {
	c := compiler{b: newBuilder(dialects[SQLite]), now: time.Now(), rid: "v.record_id"}
	return c.matching(e)
}

// narrow runs q's probes until one counts at most probeLimit records, and returns its condition
// and how many records it matches; ok is false when every condition matches more (or none can
// be probed).
func narrow(ctx context.Context, db Queryer, d Dialect, q Query, pageSize int) (c *Cond, n int, ok bool, err error) {
	limit := probeLimit(q.Records, pageSize)
	probes, err := Probes(d, q, limit)
	if err != nil {
		return nil, 0, false, err
	}
	for _, p := range probes {
		if q.Pair != nil && p.Cond == q.Pair.Cond {
			continue // the pair's walk reads no more of its index than the probe would
		}
		rows, err := db.QueryContext(ctx, p.SQL, p.Args...)
		if err != nil {
			return nil, 0, false, err
		}
		n := 0
		if rows.Next() {
			err = rows.Scan(&n)
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		if err != nil {
			return nil, 0, false, err
		}
		if n <= limit {
			return &p.Cond, n, true, nil
		}
	}
	return nil, 0, false, nil
}

// Probed reports whether Page runs a probe for q: only then does it weigh the counts against
// q.Records, which a caller may otherwise leave 0 rather than read the database's size (a
// statement of its own).
func Probed(q Query) bool {
	if q.Filter == nil || q.Within != nil || q.Narrow != nil {
		return false
	}
	for _, c := range topConds(q.Filter) {
		if probeable(c) && (q.Pair == nil || c != q.Pair.Cond) {
			return true
		}
	}
	return false
}
