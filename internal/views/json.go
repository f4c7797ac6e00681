package views

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// The readers this package adds to jsonbody's. JSON null counts as absent everywhere.

// required reads m[k] as a string that must be present.
func required(p *quire.Problems, path string, m map[string]any, k string) (string, bool) {
	v := m[k]
	if v == nil {
		p.Add(jsonbody.Join(path, k), quire.ReasonRequired, "Field "+strconv.Quote(k)+" is required.")
		return "", false
	}
	return jsonbody.String(p, jsonbody.Join(path, k), v)
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
		limit := max
		if f < float64(min) {
			limit = min
		}
		// actual is clamped to what an int64 holds; it is past the limit either way.
		p.AddDetail(quire.Beyond(path, quire.ReasonOutOfRange, int64(limit), int64(math.Max(math.Min(f, 9e18), -9e18))),
			"Expected a number from "+strconv.Itoa(min)+" to "+strconv.Itoa(max)+".")
		return 0, false
	}
	return int(f), true
}

// tooLong reports whether s has more than max characters (Unicode code points).
func tooLong(s string, max int) bool {
	return len(s) > max && utf8.RuneCountInString(s) > max
}

// runes is the length of s in characters, as a detail's actual.
func runes(s string) int64 { return int64(utf8.RuneCountInString(s)) }
