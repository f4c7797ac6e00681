package blocks

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// The few readers this package adds to jsonbody's: a member that may be null, a boolean or an
// integer member, and an array read in full even when it is too long.

// nullableStr reads an optional string that may be null ("" then).
func nullableStr(p *quire.Problems, path string, m map[string]any, key string) (string, bool) {
	if v, present := m[key]; present && v == nil {
		return "", true
	}
	return jsonbody.Str(p, path, m, key)
}

func boolean(p *quire.Problems, path string, m map[string]any, key string) (bool, bool) {
	v, present := m[key]
	if !present {
		return false, false
	}
	return jsonbody.Bool(p, jsonbody.Join(path, key), v)
}

// integer reads an optional integral number (3 and 3.0 alike, as a JavaScript client sends).
func integer(p *quire.Problems, path string, m map[string]any, key string) (int, bool) {
	v, present := m[key]
	if !present {
		return 0, false
	}
	var f float64
	switch n := v.(type) {
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			f = math.NaN()
		}
	case float64:
		f = n
	default:
		p.Add(jsonbody.Join(path, key), quire.ReasonInvalidType, "Expected an integer.")
		return 0, false
	}
	if f != math.Trunc(f) || math.IsNaN(f) {
		p.Add(jsonbody.Join(path, key), quire.ReasonInvalidType, "Expected an integer.")
		return 0, false
	}
	if f > 1e9 || f < -1e9 {
		limit := int64(1e9)
		if f < 0 {
			limit = -limit
		}
		// actual is clamped to what an int64 holds; it is past the limit either way.
		p.AddDetail(quire.Beyond(jsonbody.Join(path, key), quire.ReasonOutOfRange, limit, int64(max(min(f, 9e18), -9e18))),
			"Expected a number from -1000000000 to 1000000000.")
		return 0, false
	}
	return int(f), true
}

// array reads v as an array. One longer than MaxArray is reported but still read, so that the
// problems of its items and the request's block count cover it.
func array(p *quire.Problems, path string, v any) ([]any, bool) {
	a, ok := jsonbody.Array(p, path, v, math.MaxInt)
	if ok && len(a) > MaxArray {
		tooMany(p, path, MaxArray, len(a), "items")
	}
	return a, ok
}

// tooMany reports a list of n things where at most limit are allowed, with both numbers.
func tooMany(p *quire.Problems, path string, limit, n int, what string) {
	p.AddDetail(quire.Beyond(path, quire.ReasonTooMany, int64(limit), int64(n)), "At most "+strconv.Itoa(limit)+" "+what+".")
}

// outOfRange reports a table width (or any count) outside 1..MaxArray, naming the bound broken.
func outOfRange(p *quire.Problems, path string, lo, hi, n int, message string) {
	limit := hi
	if n < lo {
		limit = lo
	}
	p.AddDetail(quire.Beyond(path, quire.ReasonOutOfRange, int64(limit), int64(n)), message)
}
