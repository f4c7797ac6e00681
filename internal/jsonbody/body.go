package jsonbody

import (
	"slices"

	"github.com/quire-dev/quire/internal/quire"
)

// Body describes the members of a request body, or of an object inside one (a parent, a sort).
// Its decoder reads it to refuse the keys it does not list, and the OpenAPI document builds the
// object's schema from it (httpapi/schema_bodies.go), so the document lists exactly the keys the
// decoder takes, with the limits and values the decoder's own constants hold.
type Body struct {
	// Noun names the body in a message about an unknown key: "A page" gives "A page has no
	// field k."; empty gives "Unknown field \"k\".".
	Noun   string
	Fields []Field // in the document's order, which is the order of its required list
}

// Field is one member of a body. Type is its JSON type (string, integer, number, boolean,
// array, object) or empty when Shape is the whole schema; Shape names a schema the document
// builds elsewhere (a block, a parent, a file object): the member itself when Type is empty,
// the items of an array, the values of an object.
type Field struct {
	Name   string
	Type   string
	Shape  string
	Items  string // the JSON type of an array's items, when they have no Shape
	Format string // uuid, uri
	Doc    string

	Required bool
	// Nullable shows null as taken: as the member left out, or with the meaning Doc says
	// (clears, resets). TestRequestBodiesMatchTheDocument holds the decoder to it both ways.
	Nullable bool
	// Hidden is a key the decoder takes that the document does not show: an alias kept for
	// clients of the original service (archived for in_trash).
	Hidden bool

	Enum    []string
	Default any

	MinLength, MaxLength int // characters; 0 is no limit
	MinItems, MaxItems   int
	Minimum, Maximum     *float64
}

// Has tells whether key is a member the body takes (hidden ones included).
func (b Body) Has(key string) bool {
	return slices.ContainsFunc(b.Fields, func(f Field) bool { return f.Name == key })
}

// Unknown reports every key of m, the body, that b does not take, in key order.
func (b Body) Unknown(p *quire.Problems, m map[string]any) { b.UnknownAt(p, "", m) }

// UnknownAt reports every key of m, the object at path, that b does not take, in key order.
func (b Body) UnknownAt(p *quire.Problems, path string, m map[string]any) {
	for _, k := range SortedKeys(m) {
		b.TakesAt(p, path, k)
	}
}

// Takes tells whether b takes key, and reports it as unknown_field when not: a decoder that
// reads the body key by key calls it first, so each problem comes in key order.
func (b Body) Takes(p *quire.Problems, key string) bool { return b.TakesAt(p, "", key) }

// TakesAt is Takes for the object at path.
func (b Body) TakesAt(p *quire.Problems, path, key string) bool {
	switch {
	case b.Has(key):
		return true
	case b.Noun == "":
		UnknownKey(p, path, key)
	default:
		p.Add(Join(path, key), quire.ReasonUnknownField, b.Noun+" has no field "+key+".")
	}
	return false
}

// Limit is n as a Minimum or Maximum.
func Limit(n float64) *float64 { return &n }
