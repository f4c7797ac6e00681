package dbquery

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/quire"
)

// operand is the kind of value an operator takes.
type operand int

const (
	argText   operand = iota // a string
	argNumber                // a number
	argBool                  // true or false
	argOption                // an option name (or id), resolved to the option id
	argID                    // a user or page id (UUID)
	argDate                  // an ISO 8601 date or date-time
	argTrue                  // true (is_empty, is_not_empty)
	argNone                  // {} (the relative date operators)
)

// family is the operator set shared by property types that filter alike.
type family map[string]operand

var (
	textOps = family{"equals": argText, "does_not_equal": argText, "contains": argText,
		"does_not_contain": argText, "starts_with": argText, "ends_with": argText,
		"is_empty": argTrue, "is_not_empty": argTrue}
	numberOps = family{"equals": argNumber, "does_not_equal": argNumber, "greater_than": argNumber,
		"less_than": argNumber, "greater_than_or_equal_to": argNumber, "less_than_or_equal_to": argNumber,
		"is_empty": argTrue, "is_not_empty": argTrue}
	checkboxOps    = family{"equals": argBool, "does_not_equal": argBool}
	selectOps      = family{"equals": argOption, "does_not_equal": argOption, "is_empty": argTrue, "is_not_empty": argTrue}
	multiSelectOps = family{"contains": argOption, "does_not_contain": argOption, "is_empty": argTrue, "is_not_empty": argTrue}
	dateOps        = family{"equals": argDate, "before": argDate, "after": argDate, "on_or_before": argDate,
		"on_or_after": argDate, "is_empty": argTrue, "is_not_empty": argTrue, "past_week": argNone,
		"past_month": argNone, "past_year": argNone, "next_week": argNone, "next_month": argNone,
		"next_year": argNone, "this_week": argNone}
	idOps    = family{"contains": argID, "does_not_contain": argID, "is_empty": argTrue, "is_not_empty": argTrue}
	filesOps = family{"is_empty": argTrue, "is_not_empty": argTrue}
)

// families maps each filterable property type to its operators.
var families = map[string]family{
	"title": textOps, "rich_text": textOps, "url": textOps, "email": textOps, "phone_number": textOps,
	"number": numberOps, "unique_id": numberOps, "checkbox": checkboxOps,
	"select": selectOps, "status": selectOps, "multi_select": multiSelectOps,
	"date": dateOps, TypeCreatedTime: dateOps, TypeLastEditedTime: dateOps,
	"people": idOps, TypeCreatedBy: idOps, TypeLastEditedBy: idOps, "relation": idOps,
	"files": filesOps,
}

// filterKeys are the condition keys a property filter may carry (Notion's list); formula and
// rollup are known but match no property type yet.
var filterKeys = map[string]bool{"formula": true, "rollup": true}

func init() {
	for t := range families {
		filterKeys[t] = true
	}
}

// accepts reports whether a property of type typ takes a condition under key: its own type, or
// the family key Notion also documents (rich_text for text, date for timestamps, people for users).
func accepts(typ, key string) bool {
	if key == typ {
		return true
	}
	switch key {
	case "rich_text":
		_, text := families[typ]["starts_with"]
		return text
	case "date":
		return typ == TypeCreatedTime || typ == TypeLastEditedTime
	case "people":
		return typ == TypeCreatedBy || typ == TypeLastEditedBy
	}
	return false
}

// cond decodes a condition object {operator: value} for a property (p nil for a timestamp).
func (d *decoder) cond(propID, typ string, p *Property, v any, path string) Expr {
	obj, ok := v.(map[string]any)
	if !ok {
		d.p.Add(path, quire.ReasonInvalidType, "A condition must be an object.")
		return nil
	}
	if len(obj) == 0 {
		d.p.Add(path, quire.ReasonInvalidValue, "A condition needs one operator.")
		return nil
	}
	fam := families[typ]
	op := ""
	for _, k := range keys(obj) {
		switch _, known := fam[k]; {
		case !known:
			d.p.Unsupported(quire.CodeUnsupportedFilter, path+"."+k, quire.ReasonUnknownField, fmt.Sprintf("%s has no operator %q.", typ, k))
		case op != "":
			d.p.Add(path+"."+k, quire.ReasonInvalidValue, "A condition holds one operator.")
		default:
			op = k
		}
	}
	if op == "" {
		return nil
	}
	d.conds++
	value, ok := d.operand(fam[op], p, obj[op], path+"."+op)
	if !ok {
		return nil
	}
	c := Cond{PropertyID: propID, Type: typ, Op: op, Value: value}
	if s, isText := value.(string); isText && s == "" && fam[op] == argText {
		// Empty text is stored as no row at all: equals "" is is_empty.
		switch op {
		case "equals":
			c.Op, c.Value = "is_empty", nil
		case "does_not_equal":
			c.Op, c.Value = "is_not_empty", nil
		}
	}
	return c
}

// operand checks and converts an operator's value.
func (d *decoder) operand(kind operand, p *Property, v any, path string) (any, bool) {
	bad := func(reason, msg string) (any, bool) {
		d.p.Add(path, reason, msg)
		return nil, false
	}
	switch kind {
	case argNumber:
		n, ok := v.(json.Number)
		if !ok {
			return bad(quire.ReasonInvalidType, "The value must be a number.")
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || math.IsInf(f, 0) {
			return bad(quire.ReasonOutOfRange, "The number is out of range.")
		}
		return f, true
	case argBool, argTrue:
		b, ok := v.(bool)
		if !ok {
			return bad(quire.ReasonInvalidType, "The value must be a boolean.")
		}
		if kind == argTrue {
			if !b {
				return bad(quire.ReasonInvalidValue, "The value must be true.")
			}
			return nil, true
		}
		return b, true
	case argNone:
		obj, ok := v.(map[string]any)
		if !ok {
			return bad(quire.ReasonInvalidType, "The value must be an empty object.")
		}
		for _, k := range keys(obj) {
			d.p.Add(path+"."+k, quire.ReasonUnknownField, "The value must be an empty object.")
		}
		return nil, len(obj) == 0
	}
	s, ok := v.(string)
	if !ok {
		return bad(quire.ReasonInvalidType, "The value must be a string.")
	}
	if strings.ContainsRune(s, 0) {
		return bad(quire.ReasonInvalidValue, "The value must not contain NUL characters.")
	}
	switch kind {
	case argText:
		if n := utf8.RuneCountInString(s); n > maxText {
			d.p.AddDetail(quire.Beyond(path, quire.ReasonTooLong, maxText, int64(n)), fmt.Sprintf("The value is at most %d characters.", maxText))
			return nil, false
		}
		return s, true
	case argOption:
		id, ok := p.option(s)
		if !ok {
			return bad(quire.ReasonAmbiguous, fmt.Sprintf("Several options are named %q.", s))
		}
		return id, true
	case argID:
		id, ok := quire.CanonicalID(s)
		if !ok {
			return bad(quire.ReasonInvalidValue, "The value must be a UUID.")
		}
		return id, true
	default: // argDate
		ms, day, ok := quire.ParseDate(s)
		if !ok {
			return bad(quire.ReasonInvalidValue, "The value must be an ISO 8601 date or date-time.")
		}
		return Date{Ms: ms, Day: day}, true
	}
}
