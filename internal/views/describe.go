package views

import "slices"

// Operators lists the operators of a view filter's conditions, for describers such as the
// OpenAPI document; which of them a property takes depends on its type (a condition names the
// property by id, so the wire cannot tell).
func Operators() []string { return slices.Clone(operators) }

// GroupOperators lists the operators of a filter group.
func GroupOperators() []string { return []string{And, Or} }
