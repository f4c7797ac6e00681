package store

// SettleQueryForTest is the statement that settles one parent's has_children.
var SettleQueryForTest = `UPDATE blocks SET has_children = NOT has_children WHERE id IN ($1) AND has_children <> ` + childExists
