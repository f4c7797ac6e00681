package blocks

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"

	"github.com/quire-dev/quire/internal/quire"
)

// Helpers that read a value parsed by encoding/json (with or without UseNumber) and record a
// problem at the exact path when it has the wrong JSON type.

// parse unmarshals raw into a generic value, keeping numbers exact.
func parse(raw []byte, path string) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalidJSON(path)
	}
	if dec.More() {
		return nil, invalidJSON(path)
	}
	return v, nil
}

func invalidJSON(path string) error {
	if path == "" {
		path = "body"
	}
	return &quire.Error{Code: quire.CodeInvalidJSON, Message: "The body is not valid JSON.",
		Details: []quire.Detail{{Path: path, Reason: quire.ReasonInvalidType}}}
}

func object(p *quire.Problems, path string, v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "Expected an object.")
	}
	return m, ok
}

// unknown reports every key of m that is not allowed, in sorted order so that answers are
// stable.
func unknown(p *quire.Problems, path string, m map[string]any, allowed ...string) {
	var extra []string
	for k := range m {
		found := false
		for _, a := range allowed {
			if k == a {
				found = true
				break
			}
		}
		if !found {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		p.Add(join(path, k), quire.ReasonUnknownField, "Unknown field "+strconv.Quote(k)+".")
	}
}

// str reads an optional string; ok is false when absent or of the wrong type (reported).
func str(p *quire.Problems, path string, m map[string]any, key string) (string, bool) {
	v, present := m[key]
	if !present {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		p.Add(join(path, key), quire.ReasonInvalidType, "Expected a string.")
	}
	return s, ok
}

// nullableStr reads an optional string that may be null ("" then).
func nullableStr(p *quire.Problems, path string, m map[string]any, key string) (string, bool) {
	if v, present := m[key]; present && v == nil {
		return "", true
	}
	return str(p, path, m, key)
}

func requiredStr(p *quire.Problems, path string, m map[string]any, key string) (string, bool) {
	if _, present := m[key]; !present {
		p.Add(join(path, key), quire.ReasonRequired, "Field "+strconv.Quote(key)+" is required.")
		return "", false
	}
	return str(p, path, m, key)
}

func boolean(p *quire.Problems, path string, m map[string]any, key string) (bool, bool) {
	v, present := m[key]
	if !present {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		p.Add(join(path, key), quire.ReasonInvalidType, "Expected a boolean.")
	}
	return b, ok
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
		p.Add(join(path, key), quire.ReasonInvalidType, "Expected an integer.")
		return 0, false
	}
	if f != math.Trunc(f) || math.IsNaN(f) {
		p.Add(join(path, key), quire.ReasonInvalidType, "Expected an integer.")
		return 0, false
	}
	if f > 1e9 || f < -1e9 {
		p.Add(join(path, key), quire.ReasonOutOfRange, "Number is out of range.")
		return 0, false
	}
	return int(f), true
}

func array(p *quire.Problems, path string, v any) ([]any, bool) {
	a, ok := v.([]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "Expected an array.")
		return nil, false
	}
	if len(a) > MaxArray {
		p.Add(path, quire.ReasonTooMany, "At most 100 items.")
	}
	return a, true
}
