package views

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/quire"
)

// Helpers that read a value parsed by encoding/json (with or without UseNumber) and record a
// problem at the exact path when it is wrong. JSON null counts as absent everywhere.

// key extends path with an object key. A key that is empty or holds a character of the path
// syntax (. [ ] ") is written quoted, so that every segment is non-empty and unambiguous:
// config."" or config."a.b".
func key(path, k string) string {
	if k == "" || strings.ContainsAny(k, `.[]"`) {
		k = strconv.Quote(k)
	}
	if path == "" {
		return k
	}
	return path + "." + k
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// sortedKeys returns m's keys in order, so that problems come out in a stable order.
func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// unknown reports every key of m that is not allowed.
func unknown(p *quire.Problems, path string, m map[string]any, allowed ...string) {
	for _, k := range sortedKeys(m) {
		if !contains(allowed, k) {
			p.Add(key(path, k), quire.ReasonUnknownField, "Unknown field "+strconv.Quote(k)+".")
		}
	}
}

// object reads v as an object; a non-object is reported as invalid_type.
func object(p *quire.Problems, path string, v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "Expected an object.")
	}
	return m, ok
}

// array reads v as an array of at most max items.
func array(p *quire.Problems, path string, v any, max int) ([]any, bool) {
	a, ok := v.([]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "Expected an array.")
		return nil, false
	}
	if len(a) > max {
		p.Add(path, quire.ReasonTooMany, "At most "+strconv.Itoa(max)+" items.")
		return nil, false
	}
	return a, true
}

// str reads v as a string.
func str(p *quire.Problems, path string, v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "Expected a string.")
	}
	return s, ok
}

// required reads m[k] as a string that must be present.
func required(p *quire.Problems, path string, m map[string]any, k string) (string, bool) {
	v := m[k]
	if v == nil {
		p.Add(key(path, k), quire.ReasonRequired, "Field "+strconv.Quote(k)+" is required.")
		return "", false
	}
	return str(p, key(path, k), v)
}

func boolean(p *quire.Problems, path string, v any) (bool, bool) {
	b, ok := v.(bool)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "Expected a boolean.")
	}
	return b, ok
}

// integer reads an integral number (3 and 3.0 alike) within [min, max].
func integer(p *quire.Problems, path string, v any, min, max int) (int, bool) {
	f := math.NaN()
	switch n := v.(type) {
	case json.Number:
		// A number too large for float64 is out of range, not malformed.
		if x, err := n.Float64(); err == nil || math.IsInf(x, 0) {
			f = x
		}
	case float64:
		f = n
	default:
		p.Add(path, quire.ReasonInvalidType, "Expected an integer.")
		return 0, false
	}
	if math.IsNaN(f) || f != math.Trunc(f) {
		p.Add(path, quire.ReasonInvalidType, "Expected an integer.")
		return 0, false
	}
	if f < float64(min) || f > float64(max) {
		p.Add(path, quire.ReasonOutOfRange, "Expected a number from "+strconv.Itoa(min)+" to "+strconv.Itoa(max)+".")
		return 0, false
	}
	return int(f), true
}

// oneOf reads v as a string from list.
func oneOf(p *quire.Problems, path string, v any, list []string) (string, bool) {
	s, ok := str(p, path, v)
	if !ok {
		return "", false
	}
	if !contains(list, s) {
		p.Add(path, quire.ReasonInvalidValue, strconv.Quote(s)+" is not one of the allowed values.")
		return "", false
	}
	return s, true
}

// tooLong reports whether s has more than max characters (Unicode code points).
func tooLong(s string, max int) bool {
	return len(s) > max && utf8.RuneCountInString(s) > max
}
