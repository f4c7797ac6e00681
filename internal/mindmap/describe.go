package mindmap

import (
	"slices"
	"strings"
)

// EditDescription is the read-only view of one edit operation, for describers such as the
// OpenAPI document: the fields it takes (op included) and those it requires, from the tables the
// decoder checks edits against.
type EditDescription struct {
	Op       string
	Fields   []string
	Required []string
}

// DescribeEdits lists the edit operations, sorted by op.
func DescribeEdits() []EditDescription {
	out := make([]EditDescription, 0, len(editFields))
	for op, fields := range editFields {
		out = append(out, EditDescription{Op: op, Fields: slices.Clone(fields), Required: slices.Clone(editRequired[op])})
	}
	slices.SortFunc(out, func(a, b EditDescription) int { return strings.Compare(a.Op, b.Op) })
	return out
}
