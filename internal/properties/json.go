package properties

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// The readers this package adds to jsonbody's.

// field is one key of a JSON object with its value, in request order when known.
type field struct {
	key string
	val any
}

// fields reads v, an object parsed by encoding/json or the raw JSON of one
// (json.RawMessage or []byte), as its fields. Raw JSON keeps the request's key order, which
// is the schema order of new properties; a parsed map has lost it, so its keys are sorted to
// keep answers stable. ok is false when v is not an object (reported at path).
func fields(p *quire.Problems, path string, v any) ([]field, bool) {
	switch raw := v.(type) {
	case json.RawMessage:
		return rawFields(p, path, raw)
	case []byte:
		return rawFields(p, path, raw)
	}
	m, ok := jsonbody.Object(p, path, v)
	if !ok {
		return nil, false
	}
	fs := make([]field, 0, len(m))
	for _, k := range jsonbody.SortedKeys(m) {
		fs = append(fs, field{k, m[k]})
	}
	return fs, true
}

// rawFields reads raw as one JSON object in key order. A later duplicate key replaces the
// value of the first, as encoding/json does, and keeps the first one's place.
func rawFields(p *quire.Problems, path string, raw []byte) ([]field, bool) {
	v, order, err := jsonbody.ParseOrdered(raw)
	if err != nil {
		// The body as a whole was read, so only a caller's slice of it can be malformed.
		p.Add(path, quire.ReasonInvalidValue, "Not valid JSON.")
		return nil, false
	}
	m, ok := jsonbody.Object(p, path, v)
	if !ok {
		return nil, false
	}
	fs := make([]field, len(order))
	for i, k := range order {
		fs[i] = field{k, m[k]}
	}
	return fs, true
}

// nullableStr reads an optional string that may be null; present tells absent from null.
func nullableStr(p *quire.Problems, path string, m map[string]any, key string) (s string, present, ok bool) {
	v, present := m[key]
	if !present || v == nil {
		return "", present, true
	}
	s, ok = v.(string)
	if !ok {
		p.Add(jsonbody.Join(path, key), quire.ReasonInvalidType, "Expected a string or null.")
	}
	return s, true, ok
}

// number reads a JSON number, finite and in float64's range.
func number(p *quire.Problems, path string, v any) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case json.Number:
		var err error
		f, err = strconv.ParseFloat(string(n), 64)
		if ne, ok := err.(*strconv.NumError); ok && ne.Err != strconv.ErrRange {
			p.Add(path, quire.ReasonInvalidType, "Expected a number.")
			return 0, false
		}
		// A range error is either an infinity (reported below) or an underflow to 0, which
		// is the nearest number there is.
	case float64:
		f = n
	default:
		p.Add(path, quire.ReasonInvalidType, "Expected a number.")
		return 0, false
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		p.Add(path, quire.ReasonOutOfRange, "The number is out of range.")
		return 0, false
	}
	if f == 0 {
		f = 0 // -0 reads as 0
	}
	return f, true
}

// length is s's length in characters (Unicode code points): never stricter than Notion's
// UTF-16 count, so anything Notion accepts is accepted here.
func length(s string) int { return utf8.RuneCountInString(s) }

// checkName reports a property or option name that is empty or too long.
func checkName(p *quire.Problems, path, name, what string) bool {
	switch {
	case name == "":
		p.Add(path, quire.ReasonInvalidValue, what+" name cannot be empty.")
		return false
	case length(name) > MaxNameLength:
		p.AddDetail(quire.Beyond(path, quire.ReasonTooLong, MaxNameLength, int64(length(name))), what+" name is longer than "+strconv.Itoa(MaxNameLength)+" characters.")
		return false
	}
	return true
}
