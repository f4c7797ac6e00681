package dbquery

import "slices"

// ValueProperties lists the properties whose record_values rows query q reads, each once in
// sorted order: those of its conditions and sorts, but for the types read from the record's nodes
// row (created and edited time and by). A database keeps rows only for the properties registered as indexed
// (internal/store/records_indexed.go), so the store checks these before it runs q.
func ValueProperties(q Query) []string {
	var out []string
	var walk func(e Expr)
	walk = func(e Expr) {
		switch e := e.(type) {
		case And:
			for _, m := range e {
				walk(m)
			}
		case Or:
			for _, m := range e {
				walk(m)
			}
		case Cond:
			if _, onNode := nodeColumn[e.Type]; !onNode && e.PropertyID != "" {
				out = append(out, e.PropertyID)
			}
		}
	}
	walk(q.Filter)
	for _, s := range q.Sorts {
		if !onNode(s) && s.PropertyID != "" {
			out = append(out, s.PropertyID)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
