package dbquery

import (
	"slices"
	"strings"
)

// FilterKey is the read-only view of one condition key of a property filter, for describers such
// as the OpenAPI document: the operators it takes and the kind of value each operator takes, read
// from the same tables the decoder uses, so a new operator or property type shows up there by
// itself.
type FilterKey struct {
	Key       string
	Operators []Operator // sorted by name
}

// Operator is one operator of a condition and the kind of its value: text, number, boolean,
// option (a name or id), id (a UUID), date (ISO 8601), true (only true) or empty (the object {}).
type Operator struct {
	Name    string
	Operand string
}

var operandNames = map[operand]string{argText: "text", argNumber: "number", argBool: "boolean",
	argOption: "option", argID: "id", argDate: "date", argTrue: "true", argNone: "empty"}

// DescribeFilters lists the condition keys of property filters, sorted: every filterable
// property type. A property also takes the key Notion documents for its family (rich_text for
// text types, date for timestamps, people for created_by and last_edited_by), which has that
// type's operators.
func DescribeFilters() []FilterKey {
	out := make([]FilterKey, 0, len(families))
	for key, fam := range families {
		fk := FilterKey{Key: key}
		for name, kind := range fam {
			fk.Operators = append(fk.Operators, Operator{Name: name, Operand: operandNames[kind]})
		}
		slices.SortFunc(fk.Operators, func(a, b Operator) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, fk)
	}
	slices.SortFunc(out, func(a, b FilterKey) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// TimestampFilters lists the timestamps a timestamp filter may name; each takes the key of its
// own name with the date operators.
func TimestampFilters() []string { return []string{TypeCreatedTime, TypeLastEditedTime} }

// MaxFilterDepth is how many levels deep and/or filters nest.
const MaxFilterDepth = maxDepth

// Sortable lists the property types a sort may name, sorted.
func Sortable() []string {
	out := make([]string, 0, len(sortColumn))
	for t := range sortColumn {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
