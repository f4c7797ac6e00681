// Package dbquery turns the Notion filter and sort JSON of POST /v2/databases/:id/query into a
// small intermediate form (Expr, Sort), and that form into one SQL statement per dialect
// (SQLite, PostgreSQL) that selects record ids over the indexes of nodes and record_values.
//
// What the writer of record_values must store, per property type (one row per scalar, ord 0…):
//
//	title, rich_text, url, email, phone_number  v_text = the plain text; no row when empty
//	number, unique_id                           v_num = the number; no row when empty
//	checkbox                                    v_num = 1 or 0, always one row
//	select, status                              v_text = option id, v_num = the option's index
//	                                            in the schema's options (sorts follow it)
//	multi_select                                v_text = option id, one row per option
//	date                                        v_num = start in Unix ms (quire.ParseDate); no v_text
//	                                            (stores before migration 00021 had the start as given)
//	people, relation                            v_text = user or page id, one row each
//	files                                       v_text = the file's name, one row each
//
// created_time, last_edited_time, created_by and last_edited_by are read from the record's nodes
// row (created_ms, edited_ms, created_by, edited_by), never from record_values.
package dbquery

// Expr is a decoded filter: an And, an Or or a Cond.
type Expr interface{ expr() }

// And matches records that match every member; an empty And matches every record.
type And []Expr

// Or matches records that match at least one member; an empty Or matches none.
type Or []Expr

// Cond is one condition on one property, or on a record timestamp when PropertyID is empty.
type Cond struct {
	PropertyID string // "" for a timestamp filter
	Type       string // the property's type; created_time or last_edited_time for a timestamp filter
	Op         string // the Notion operator: equals, contains, past_week …
	// Value is a string (text, option id, user or page id), a float64 (number), a bool
	// (checkbox), a Date (date operators that take one), or nil (is_empty, is_not_empty and the
	// relative date operators).
	Value any
}

// Date is a date filter operand: an instant in Unix ms, or a whole UTC day starting at Ms.
type Date struct {
	Ms  int64
	Day bool // a date without a time: the comparison covers the whole day
}

func (And) expr()  {}
func (Or) expr()   {}
func (Cond) expr() {}

// Sort is one decoded sort key: a property, or a timestamp when PropertyID is empty.
type Sort struct {
	PropertyID string // "" for a timestamp sort
	Type       string // the property's type; created_time or last_edited_time for a timestamp sort
	Descending bool
}

// Property types read from the record's nodes row rather than from record_values.
const (
	TypeCreatedTime    = "created_time"
	TypeLastEditedTime = "last_edited_time"
	TypeCreatedBy      = "created_by"
	TypeLastEditedBy   = "last_edited_by"
)
