package jsonbody

import (
	"slices"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// Helpers that read a value of the tree Parse builds (or one encoding/json built) and record a
// problem at its exact path when it has the wrong JSON type. Each takes the path of the value
// it reads.

// Join extends path with object keys, one level each. A key that is empty or holds a
// character of the path syntax (. [ ] ") is written quoted, so that every segment is non-empty
// and the path is unambiguous: config."" or config."a.b".
func Join(path string, keys ...string) string {
	for _, key := range keys {
		if key == "" || strings.ContainsAny(key, `.[]"`) {
			key = strconv.Quote(key)
		}
		if path == "" {
			path = key
		} else {
			path += "." + key
		}
	}
	return path
}

// Index extends path with an array index.
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// SortedKeys returns m's keys in order, so that problems come out in a stable order. The slice
// is sized once: every object of every write body passes here (slices.Sorted(maps.Keys(m))
// grew it from nothing, a tenth of a mutations batch's decoding).
func SortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Unknown reports every key of m (the object at path) that is not allowed, in key order. Keys
// are sorted only when one is unknown: a valid body, the usual one, is not sorted at all.
func Unknown(p *quire.Problems, path string, m map[string]any, allowed ...string) {
	for k := range m {
		if !slices.Contains(allowed, k) {
			for _, k := range SortedKeys(m) {
				if !slices.Contains(allowed, k) {
					UnknownKey(p, path, k)
				}
			}
			return
		}
	}
}

// UnknownKey reports key of the object at path as unknown.
func UnknownKey(p *quire.Problems, path, key string) {
	p.Add(Join(path, key), quire.ReasonUnknownField, "Unknown field "+strconv.Quote(key)+".")
}

// Object reads v as an object; anything else is reported as invalid_type.
func Object(p *quire.Problems, path string, v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "Expected an object.")
	}
	return m, ok
}

// Array reads v as an array of at most max items. A longer one is reported as too_many and not
// read further, so that one oversized array does not answer with thousands of details.
func Array(p *quire.Problems, path string, v any, max int) ([]any, bool) {
	a, ok := v.([]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "Expected an array.")
		return nil, false
	}
	if len(a) > max {
		p.AddDetail(quire.Beyond(path, quire.ReasonTooMany, int64(max), int64(len(a))), "At most "+strconv.Itoa(max)+" items.")
		return nil, false
	}
	return a, true
}

// EachObject calls each with every item of arr, the array at path, that is an object, and the
// item's path; an item that is not is reported as invalid_type and skipped.
func EachObject(p *quire.Problems, path string, arr []any, each func(path string, m map[string]any)) {
	for i, item := range arr {
		ip := Index(path, i)
		if m, ok := Object(p, ip, item); ok {
			each(ip, m)
		}
	}
}

// String reads v as a string.
func String(p *quire.Problems, path string, v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "Expected a string.")
	}
	return s, ok
}

// Bool reads v as a boolean.
func Bool(p *quire.Problems, path string, v any) (bool, bool) {
	b, ok := v.(bool)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "Expected a boolean.")
	}
	return b, ok
}

// Str reads the optional string member key of m (the object at path); ok is false when it is
// absent or not a string (reported).
func Str(p *quire.Problems, path string, m map[string]any, key string) (string, bool) {
	v, present := m[key]
	if !present {
		return "", false
	}
	if s, ok := v.(string); ok { // the path is built only for a problem
		return s, true
	}
	return String(p, Join(path, key), v)
}

// RequiredStr is Str for a member that must be present.
func RequiredStr(p *quire.Problems, path string, m map[string]any, key string) (string, bool) {
	if _, present := m[key]; !present {
		p.Add(Join(path, key), quire.ReasonRequired, "Field "+strconv.Quote(key)+" is required.")
		return "", false
	}
	return Str(p, path, m, key)
}

// Enum reads v as a string that must be one of allowed.
func Enum(p *quire.Problems, path string, v any, allowed []string) (string, bool) {
	s, ok := String(p, path, v)
	if ok && !slices.Contains(allowed, s) {
		p.Add(path, quire.ReasonInvalidValue, "Expected one of "+strings.Join(allowed, ", ")+".")
		return "", false
	}
	return s, ok
}
