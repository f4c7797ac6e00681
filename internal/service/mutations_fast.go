package service

import (
	"strconv"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/jsonread"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
)

// The fast path of DecodeMutations (jsonread.NewBody's rule): a batch of create operations,
// {"mutations":[{"op":"create","properties":{…}},…]}, as a seeding or an import sends it, is
// read without jsonbody's tree; each operation keeps its properties' bytes, which
// decodeCreates reads against the schema with properties.ReadBodyValues. Any other body is
// left to the reference path, which reports every problem; FuzzReadMutations holds the two
// equal.

// readMutations reads raw when it is 1 to MaxMutations create operations of op and properties
// (an object) alone; ok is false for anything else.
func readMutations(raw []byte) ([]Mutation, bool) {
	r := jsonread.NewBody(raw)
	var out []Mutation
	var seen uint64
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		if string(r.Key()) != "mutations" || !r.Once(&seen, 0) {
			return nil, false
		}
		out = make([]Mutation, 0, MaxMutations)
		r.Open('[')
		for i := 0; r.More(']', i); i++ {
			m, ok := readCreate(&r, i)
			if !ok || i == MaxMutations {
				return nil, false
			}
			out = append(out, m)
		}
	}
	if !r.End() || len(out) == 0 {
		return nil, false
	}
	return out, true
}

// readCreate reads {"op":"create","properties":{…}} (properties may be left out), operation i.
func readCreate(r *jsonread.Reader, i int) (Mutation, bool) {
	m := Mutation{Path: "mutations[" + strconv.Itoa(i) + "]"}
	var seen uint64
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch string(r.Key()) {
		case "op":
			if !r.Once(&seen, 0) || r.OneOf(mutationOps) != "create" {
				return Mutation{}, false
			}
			m.Op = "create"
		case "properties":
			if !r.Once(&seen, 1) {
				return Mutation{}, false
			}
			if m.raw = r.Raw(); len(m.raw) == 0 || m.raw[0] != '{' {
				return Mutation{}, false
			}
		default: // children, page_id, an unknown key
			return Mutation{}, false
		}
	}
	return m, !r.Bad() && m.Op == "create"
}

var mutationOps = []string{"create", "update", "trash", "restore"}

// values decodes create operation m's properties against schema: the bytes the fast path kept
// through properties.ReadBodyValues when it takes them, else jsonbody's tree of them (or of
// the body) through DecodeValues, which reports every problem.
func (m Mutation) values(schema quire.Schema) (properties.Values, error) {
	if m.raw == nil {
		return newRecordValues(schema, m.Properties, m.Path+".properties")
	}
	if vals, ok := properties.ReadBodyValues(schema, m.raw); ok {
		return vals, nil
	}
	// The fast path took no string jsonbody reads otherwise than as written, so the tree of
	// these bytes is the body's tree at mutations[i].properties.
	tree, err := jsonbody.ParseValue(m.raw)
	if err != nil {
		return nil, err
	}
	return newRecordValues(schema, tree, m.Path+".properties")
}
