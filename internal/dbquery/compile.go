package dbquery

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/quire-dev/quire/internal/quire"
)

// Query is a decoded database query, ready to compile.
type Query struct {
	DatabaseID string
	Filter     Expr      // nil: every record
	Sorts      []Sort    // none: newest created first
	After      *Position // nil: from the first record; else after this position
	Limit      int       // rows to select, page_size+1 to learn whether more follow
	Now        time.Time // the moment past_week and the other relative dates count from
	// Within, when not nil, restricts the query to these record ids, which the statement reads
	// by id and sorts instead of walking an index.
	Within []string
	// Narrow, when set (and Within is nil), is one of the filter's top-level conditions that
	// Probes makes a probe of: the statement reads the records matching it from its property's
	// index, and sorts them, instead of walking an index. Page sets it when a probe finds the
	// condition selective.
	Narrow *Cond
	// Records is about how many records the database holds, at least (0: unknown): Page weighs
	// reading a selective condition's records by id against walking the order with it.
	Records int
	// Pair, when set, is a composite index of the filter property of one of the filter's
	// top-level conditions and of the single sort property (see PairWanted): the statement walks
	// it instead of the sort property's index, unless Within or Narrow is set.
	Pair *Pair
	// Fetch, when set, has the statements that walk an index in order read more of each
	// record's nodes row (see Fetch).
	Fetch *Fetch
}

// Position is a record's place in a query's order: its sort keys (its created time when the
// query has no sorts) and its id. It is what a cursor carries, and JSON-encodable for that.
// The position that starts the records without a value for a single sort property has one
// empty key and no id.
type Position struct {
	Keys []Key  `json:"k"`
	ID   string `json:"i"`
}

// Key is one sort key's value: a number (also times, in Unix ms), a text, or neither when the
// record has no value for the sort property.
type Key struct {
	Num  *float64 `json:"n,omitempty"`
	Text *string  `json:"t,omitempty"`
}

// Stmt is one compiled statement. Each row holds the record id and then the sort key columns.
type Stmt struct {
	SQL  string
	Args []any
	// Then is set for a statement that walks the records with a value for the single sort
	// property: once it returns fewer rows than Query.Limit, the walk continues by compiling the
	// query again with After = Then, which selects the records without a value (they come last).
	Then  *Position
	keys  []string // the column (v_num, v_text, created_ms …) of each key the rows carry
	nkey  int      // the keys of a Position of this query
	fetch *Fetch   // set when the rows carry Fetch's columns after the keys
}

// errCursor answers a position that does not fit the query (another query's, or altered).
var errCursor = quire.Invalid("start_cursor", quire.ReasonInvalidValue, "The start_cursor does not belong to this query.")

// key is one column of the order: its SQL expression, its record_values column (v_num, v_text)
// or nodes column (created_ms, edited_ms), and whether a record may lack it.
type key struct {
	expr     string
	column   string
	nullable bool
	desc     bool
}

// Compile turns q into one statement for dialect d. The order is: the sort keys in turn, records
// without a value for a key after those with one (in both directions), then the record id in the
// direction of the last sort. Without sorts: created time descending, then id descending.
//
// One sort (or none) walks an index in that order and stops after Limit rows: a property sort
// walks record_values by (database_id, property_id, v_num|v_text, record_id) and, once that is
// exhausted, Then walks the records without a value. Several sorts, or Within, sort the filtered
// records instead. Both plans give the same order and the same positions, so a walk may switch
// plans between pages.
func Compile(d Dialect, q Query) (Stmt, error) {
	dl, ok := dialects[d]
	if !ok {
		return Stmt{}, fmt.Errorf("dbquery: unknown dialect %q", d)
	}
	if q.Limit < 1 {
		return Stmt{}, errors.New("dbquery: Limit must be at least 1")
	}
	b := newBuilder(dl)
	b.arg(q.DatabaseID) // $1 everywhere
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	c := compiler{b: b, now: now, rid: "n.id"}
	switch {
	case q.Within != nil || q.Narrow != nil || len(q.Sorts) > 1:
		return c.sorted(q)
	case len(q.Sorts) == 1 && !onNode(q.Sorts[0]):
		return c.bySortProperty(q)
	}
	return c.byNodeColumn(q, sortKeys(q.Sorts)[0])
}

// sortKeys lists the order's keys: the sorts, or created time descending when there are none.
func sortKeys(sorts []Sort) []key {
	if len(sorts) == 0 {
		return []key{{expr: "n.created_ms", column: "created_ms", desc: true}}
	}
	keys := make([]key, len(sorts))
	for i, s := range sorts {
		col := sortColumn[s.Type]
		if onNode(s) {
			keys[i] = key{expr: "n." + col, column: col, desc: s.Descending}
		} else {
			keys[i] = key{expr: fmt.Sprintf("s%d.%s", i+1, col), column: col, nullable: true, desc: s.Descending}
		}
	}
	return keys
}

// onNode reports whether s sorts by a column of the nodes row (a timestamp) rather than by
// record_values.
func onNode(s Sort) bool { return s.Type == TypeCreatedTime || s.Type == TypeLastEditedTime }

type compiler struct {
	b   *builder
	now time.Time
	// rid is the record id that conditions correlate with: n.id, or s.record_id when the scan
	// walks record_values s, so SQLite checks them before it looks the record's nodes row up.
	rid   string
	fetch *Fetch // the statement selects its columns (fetching)
}

// nodeScope keeps the database's records that are not in trash. parent_id alone names the
// database (ids are unique across nodes); in_trash is an equality so an index can hold it.
const nodeScope = "n.parent_id = $1 AND n.in_trash = FALSE"

// byNodeColumn walks the records in the order of a nodes column (created_ms or edited_ms) and id.
func (c *compiler) byNodeColumn(q Query, k key) (Stmt, error) {
	b := c.b
	b.w("SELECT n.id, ", k.expr, "\nFROM nodes n\nWHERE ", nodeScope)
	if q.After != nil {
		v, ok := q.After.millis(0)
		if !ok || len(q.After.Keys) != 1 || q.After.ID == "" {
			return Stmt{}, errCursor
		}
		b.w("\n  AND (", k.expr, ", n.id) ", gt(k.desc), " (", b.arg(v), ", ", b.arg(q.After.ID), ")")
	}
	c.filter(q.Filter)
	b.w("\nORDER BY ", k.expr, dir(k.desc), ", n.id", dir(k.desc))
	return c.finish(q, nil, []string{k.column}, 1), nil
}

// bySortProperty walks record_values' index of the sort property in order, joining each row's
// record; Then continues with the records that have no value, in id order.
func (c *compiler) bySortProperty(q Query) (Stmt, error) {
	b, s := c.b, q.Sorts[0]
	col := sortColumn[s.Type]
	var at *Key
	if q.After != nil {
		if len(q.After.Keys) != 1 {
			return Stmt{}, errCursor
		}
		at = &q.After.Keys[0]
		if !at.fits(col, true) || (q.After.ID == "" && !at.empty()) {
			return Stmt{}, errCursor
		}
	}
	if q.Pair != nil {
		return c.byPair(q, at != nil && at.empty())
	}
	prop := b.arg(s.PropertyID)
	if at != nil && at.empty() {
		b.w("SELECT n.id\nFROM nodes n\nWHERE ", nodeScope,
			"\n  AND NOT EXISTS (SELECT 1 FROM record_values s WHERE s.record_id = n.id AND s.property_id = ", prop,
			" AND s.", col, " IS NOT NULL)")
		if q.After.ID != "" {
			b.w("\n  AND n.id ", gt(s.Descending), " ", b.arg(q.After.ID))
		}
		c.filter(q.Filter)
		b.w("\nORDER BY n.id", dir(s.Descending))
		return c.finish(q, nil, nil, 1), nil
	}
	sk := "s." + col
	c.rid = "s.record_id"
	b.w("SELECT n.id, ", sk, c.fetching(q), "\nFROM record_values s CROSS JOIN nodes n",
		"\nWHERE s.database_id = $1 AND s.property_id = ", prop, " AND ", sk, " IS NOT NULL",
		"\n  AND n.id = s.record_id AND ", nodeScope)
	if at != nil {
		b.w("\n  AND (", sk, ", s.record_id) ", gt(s.Descending), " (", b.arg(at.value()), ", ", b.arg(q.After.ID), ")")
	}
	c.filter(q.Filter)
	b.w("\nORDER BY ", sk, dir(s.Descending), ", s.record_id", dir(s.Descending))
	return c.finish(q, &Position{Keys: []Key{{}}}, []string{col}, 1), nil
}

// sorted reads the filtered records (all of the database's, or those of Within), joins each sort
// property's value and sorts them: the plan for several sorts and for a selective filter.
func (c *compiler) sorted(q Query) (Stmt, error) {
	b := c.b
	keys := sortKeys(q.Sorts)
	idDesc := keys[len(keys)-1].desc
	cols := make([]string, len(keys))
	narrowed := q.Narrow != nil && q.Within == nil
	if narrowed {
		if !probeable(*q.Narrow) {
			return Stmt{}, errors.New("dbquery: Narrow is not a condition Probes reads")
		}
		// As with Within, the matching ids drive the statement; the condition matches at most one
		// row of a record (see Probe).
		b.w("WITH w (id) AS (SELECT v.record_id ")
		c.matching(*q.Narrow)
		b.w(")\n")
	} else if len(q.Within) > 0 {
		// The ids drive the statement: CROSS JOIN makes SQLite read them first, where an IN list
		// would let it walk the whole database checking each record against the list. The first
		// value is cast so that PostgreSQL types the column (and the other parameters) as text.
		b.w("WITH w (id) AS (VALUES ")
		seen := make(map[string]bool, len(q.Within))
		for _, id := range q.Within {
			if seen[id] {
				continue
			}
			if len(seen) == 0 {
				b.w("(CAST(", b.arg(id), " AS TEXT))")
			} else {
				b.w(", (", b.arg(id), ")")
			}
			seen[id] = true
		}
		b.w(")\n")
	}
	b.w("SELECT n.id")
	for i, k := range keys {
		b.w(", ", k.expr)
		cols[i] = k.column
	}
	if len(q.Within) > 0 || narrowed {
		b.w("\nFROM w CROSS JOIN nodes n")
	} else {
		b.w("\nFROM nodes n")
	}
	for i, s := range q.Sorts {
		if !onNode(s) {
			// Joined by the whole primary key (record_id, property_id, ord): a unique lookup, which
			// SQLite never trades for an automatic index built over the property's rows (it did for
			// (record_id, property_id) once Within held hundreds of ids: 1.5 s instead of 15 ms).
			a := fmt.Sprintf("s%d", i+1)
			b.w("\nLEFT JOIN record_values ", a, " ON ", a, ".record_id = n.id AND ", a, ".property_id = ", b.arg(s.PropertyID), " AND ", a, ".ord = 0")
		}
	}
	b.w("\nWHERE ")
	switch {
	case narrowed:
		b.w("n.id = w.id AND ")
	case q.Within == nil:
	case len(q.Within) == 0:
		b.w("FALSE AND ")
	default:
		b.w("n.id = w.id AND ")
	}
	b.w(nodeScope)
	if q.After != nil {
		if len(q.After.Keys) != len(keys) || q.After.ID == "" {
			return Stmt{}, errCursor
		}
		after, ok := c.after(keys, q.After, 0, idDesc)
		if !ok {
			return Stmt{}, errCursor
		}
		b.w("\n  AND ", after)
	}
	c.filter(q.Filter)
	b.w("\nORDER BY ")
	for _, k := range keys {
		if k.nullable {
			b.w(k.expr, " IS NULL, ")
		}
		b.w(k.expr, dir(k.desc), ", ")
	}
	b.w("n.id", dir(idDesc))
	return c.finish(q, nil, cols, len(keys)), nil
}

// after is the condition "the row comes after position p" from key i on, nested:
// k > v OR k IS NULL OR (k = v AND <the rest>); a key p lacks matches only other lacking rows.
func (c *compiler) after(keys []key, p *Position, i int, idDesc bool) (string, bool) {
	b := c.b
	if i == len(keys) {
		return "n.id " + gt(idDesc) + " " + b.arg(p.ID), true
	}
	k, at := keys[i], p.Keys[i]
	if !at.fits(k.column, k.nullable) {
		return "", false
	}
	if at.empty() {
		rest, ok := c.after(keys, p, i+1, idDesc)
		return "(" + k.expr + " IS NULL AND " + rest + ")", ok
	}
	var v any = at.value()
	if k.column == "created_ms" || k.column == "edited_ms" {
		ms, ok := p.millis(i)
		if !ok {
			return "", false
		}
		v = ms
	}
	ph := b.arg(v)
	rest, ok := c.after(keys, p, i+1, idDesc)
	s := "(" + k.expr + " " + gt(k.desc) + " " + ph
	if k.nullable {
		s += " OR " + k.expr + " IS NULL"
	}
	return s + " OR (" + k.expr + " = " + ph + " AND " + rest + "))", ok
}

// finish ends the statement with its LIMIT, written as a number rather than bound: SQLite
// compiles a prepared statement again each time a bound LIMIT is bound (its value may change
// the plan), which undid the preparation of the query's statements (store.foundTx, 4% of the
// query's CPU), and PostgreSQL planned it afresh on every call (a custom plan, 0.3–10 ms) where
// with the number it settles on a generic plan after five. The texts stay few: the limit is
// page_size + 1 but on the page where a walk runs out.
func (c *compiler) finish(q Query, then *Position, cols []string, nkey int) Stmt {
	c.b.w("\nLIMIT ", strconv.Itoa(q.Limit))
	return Stmt{SQL: c.b.sb.String(), Args: c.b.args, Then: then, keys: cols, nkey: nkey, fetch: c.fetch}
}

func gt(desc bool) string {
	if desc {
		return "<"
	}
	return ">"
}

func dir(desc bool) string {
	if desc {
		return " DESC"
	}
	return ""
}

// fits reports whether k is a value of column (or empty, when the column is nullable).
func (k Key) fits(column string, nullable bool) bool {
	switch {
	case k.Num != nil && k.Text != nil:
		return false
	case k.empty():
		return nullable
	case column == "v_text":
		return k.Text != nil
	}
	return k.Num != nil && !math.IsNaN(*k.Num) && !math.IsInf(*k.Num, 0)
}

func (k Key) empty() bool { return k.Num == nil && k.Text == nil }

func (k Key) value() any {
	if k.Text != nil {
		return *k.Text
	}
	return *k.Num
}

// millis reads key i as a whole number of Unix ms (created_ms, edited_ms are BIGINT).
func (p *Position) millis(i int) (int64, bool) {
	if i >= len(p.Keys) || p.Keys[i].Num == nil || p.Keys[i].Text != nil {
		return 0, false
	}
	f := *p.Keys[i].Num
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// Scan reads the current row of rows, a result of st, as the record's position.
func (st *Stmt) Scan(rows *sql.Rows) (Position, error) { return st.scanWith(rows, nil, &rowSlab{}) }

// keyVal is where a row's sort key is scanned: its column is v_text or a number.
type keyVal struct {
	num  sql.NullFloat64
	text sql.NullString
}

// rowSlab holds the destinations of a statement's rows, reused from row to row, and carves
// each row's keys out of a few shared arrays: a row's destination list, its keys' values and its
// Position's keys were three allocations per row (and the Position a fourth, its id scanned
// through a pointer), a hundred times per query.
type rowSlab struct {
	id   string
	dest []any
	vals []keyVal
	keys []Key
}

// slabRows is how many rows' keys one allocation of a rowSlab holds.
const slabRows = 32

// scanWith is Scan that also reads the row's columns after the keys into more, with the
// destinations of slab.
func (st *Stmt) scanWith(rows Scanner, more []any, slab *rowSlab) (Position, error) {
	dest := append(slab.dest[:0], &slab.id)
	if len(slab.vals) < len(st.keys) {
		slab.vals = make([]keyVal, len(st.keys)*slabRows)
	}
	vals := slab.vals[:len(st.keys):len(st.keys)]
	slab.vals = slab.vals[len(st.keys):]
	for i, col := range st.keys {
		if col == "v_text" {
			dest = append(dest, &vals[i].text)
		} else {
			dest = append(dest, &vals[i].num)
		}
	}
	dest = append(dest, more...)
	slab.dest = dest
	if err := rows.Scan(dest...); err != nil {
		return Position{}, err
	}
	if len(slab.keys) < st.nkey {
		slab.keys = make([]Key, st.nkey*slabRows)
	}
	p := Position{ID: slab.id, Keys: slab.keys[:st.nkey:st.nkey]}
	slab.keys = slab.keys[st.nkey:]
	for i := range st.keys {
		if v := &vals[i]; v.text.Valid {
			p.Keys[i].Text = &v.text.String
		} else if v.num.Valid {
			p.Keys[i].Num = &v.num.Float64
		}
	}
	return p, nil
}
