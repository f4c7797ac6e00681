package properties

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonread"
	"github.com/quire-dev/quire/internal/quire"
)

// Renderer renders records of one schema from their stored form: a page of a database query
// spent as long decoding each record's values into maps and structs, and writing them out
// again, as reading the records. What is the same for every record (each property's name and
// head, each option) is written once, by NewRenderer.
type Renderer struct {
	schema quire.Schema
	props  []renderProp
	index  map[string]int // props by property id
	dup    bool           // two properties have one id (never written): every record goes the old way
}

// renderProp is a property with its parts of the read shape written out.
type renderProp struct {
	p    *quire.Property
	head []byte   // `"Name":{"id":…,"type":…,"T":`, after a comma but for the first property
	opts [][]byte // the options' read shape, in p.Options order
}

// NewRenderer prepares the rendering of records of schema s.
func NewRenderer(s quire.Schema) *Renderer {
	r := &Renderer{schema: s, props: make([]renderProp, len(s)), index: make(map[string]int, len(s))}
	for i, p := range s {
		if _, ok := r.index[p.ID]; ok {
			r.dup = true
		}
		r.index[p.ID] = i
		var head []byte
		if i > 0 {
			head = append(head, ',')
		}
		head = append(blocks.AppendString(head, p.Name), ':')
		r.props[i] = renderProp{p: p, head: appendValueHead(head, p), opts: make([][]byte, len(p.Options))}
		for k := range p.Options {
			r.props[i].opts[k] = appendOption(nil, &p.Options[k])
		}
	}
	return r
}

// ShowsNumber reports whether the schema shows records' numbers (a unique_id property): when
// it does not, Append never reads Computed.UniqueNumber.
func (r *Renderer) ShowsNumber() bool {
	for _, p := range r.schema {
		if p.Type == quire.PropUniqueID {
			return true
		}
	}
	return false
}

// option is the read shape of p's option id (as findOption finds it), nil when p has none.
func (rp *renderProp) option(id []byte) []byte {
	for k, o := range rp.p.Options {
		if (len(id) > 0 && o.ID == string(id)) || (len(id) == 0 && o.Name == "") {
			return rp.opts[k]
		}
	}
	return nil
}

// Append appends what AppendValues appends for the values UnmarshalValues reads from raw, byte
// for byte. Each value stored in the shape MarshalValues writes is rendered from its bytes (a
// rich text is copied: its stored form is its read shape); any other value is read by readValue
// and rendered as before; and a record readValues does not take at all (or encoding/json
// refuses) is read and rendered exactly as AppendValues does.
func (r *Renderer) Append(dst, raw []byte, c Computed) ([]byte, error) {
	start := len(dst)
	if out, ok := r.appendFast(dst, raw, c); ok {
		return out, nil
	}
	vals, err := UnmarshalValues(raw)
	if err != nil {
		return dst[:start], err
	}
	return AppendValues(dst[:start], r.schema, vals, c), nil
}

// appendFast renders raw in one pass over its bytes: each member's value is rendered where it
// is read (its end is where its rendering stops), in the stored order, after dst; then the
// properties are written in the schema's order from those renderings, and moved to dst's end.
// Splitting the members first (finding each value's end by its brackets) and rendering them
// after read every byte twice; the renderings are copied instead, a fraction of the cost.
// ok is false when readValues would not take raw as it is: one object whose keys have no
// escapes, each once (stored keys are sorted by MarshalValues, so keys out of order are left to
// readValues too, which finds any repeated one), and each value one readValue takes.
func (r *Renderer) appendFast(dst, raw []byte, c Computed) ([]byte, bool) {
	if r.dup {
		return dst, false
	}
	base := len(dst)
	var arr [16]span
	spans := arr[:0]
	if len(r.props) <= len(arr) {
		spans = arr[:len(r.props)]
	} else {
		spans = make([]span, len(r.props))
	}
	if len(raw) > 0 { // none: UnmarshalValues reads no values
		cur := cursor{b: raw}
		if !cur.lit("{") {
			return dst, false
		}
		var last []byte
		for n := 0; !cur.lit("}"); n++ {
			if n > 0 && !cur.lit(",") {
				return dst, false
			}
			q, plain, ok := cur.str()
			if !ok || !plain || !cur.lit(":") {
				return dst, false
			}
			id := q[1 : len(q)-1]
			if n > 0 && bytes.Compare(last, id) >= 0 {
				return dst, false
			}
			last = id
			k, shown := r.index[string(id)]
			if !shown {
				// Not rendered (a removed property, filter_properties), but a record readValues
				// refuses for it is still left to readValues.
				end := valueEnd(raw, cur.i)
				if end < 0 {
					return dst, false
				}
				if _, ok := readOne(raw[cur.i:end]); !ok {
					return dst, false
				}
				cur.i = end
				continue
			}
			start := len(dst)
			if dst, ok = r.props[k].appendMember(dst, &cur, c); !ok {
				return dst, false
			}
			spans[k] = span{start, len(dst)}
		}
		if cur.i != len(raw) {
			return dst, false
		}
	}
	mid := len(dst)
	dst = append(dst, '{')
	for i := range r.props {
		rp := &r.props[i]
		dst = append(dst, rp.head...)
		if sp := spans[i]; sp.end > 0 {
			dst = append(dst, dst[sp.start:sp.end]...)
		} else {
			dst = appendBare(dst, rp.p, nil, c)
		}
		dst = appendValueTail(dst, rp.p)
	}
	dst = append(dst, '}')
	n := copy(dst[base:], dst[mid:])
	return dst[:base+n], true
}

// span is where a property's value was rendered in dst; end is 0 when the record has none (a
// rendered value is never empty).
type span struct{ start, end int }

// appendMember appends AppendValue's rendering of the stored value at the cursor under the
// type key, and moves the cursor past the value. ok is false when readValue does not take it.
func (rp *renderProp) appendMember(dst []byte, cur *cursor, c Computed) ([]byte, bool) {
	start, mark := cur.i, len(dst)
	if out, ok := cur.bare(dst, rp); ok && cur.i < len(cur.b) && (cur.b[cur.i] == ',' || cur.b[cur.i] == '}') {
		return out, true
	}
	// Another shape (another type's value, which valueFor converts; files, which need
	// Computed; fields MarshalValues would not write): read as readValues reads it.
	dst = dst[:mark]
	end := valueEnd(cur.b, start)
	if end < 0 {
		return dst, false
	}
	v, ok := readOne(cur.b[start:end])
	if !ok {
		return dst, false
	}
	cur.i = end
	return appendBare(dst, rp.p, Values{rp.p.ID: v}, c), true
}

// readOne reads one stored value as readValues does.
func readOne(val []byte) (Value, bool) {
	r := jsonread.New(val)
	v := readValue(&r)
	return v, r.End()
}

// bare appends the value under the type key from a value MarshalValues wrote with p's current
// type. ok is false for anything else (a value written with another type, which valueFor
// converts; files, which need Computed; fields MarshalValues would not write).
func (c *cursor) bare(dst []byte, rp *renderProp) ([]byte, bool) {
	p := rp.p
	if !c.lit(`{"t":"`) || !c.lit(p.Type) || !c.lit(`"`) {
		return dst, false
	}
	ok := true
	switch p.Type {
	case quire.PropTitle, quire.PropRichText:
		switch {
		case c.lit("}"):
			return append(dst, "[]"...), true
		case c.lit(`,"r":`):
			dst, ok = c.richText(dst, true)
		case c.lit(`,"rt":`):
			dst, ok = c.richText(dst, false)
		default:
			return dst, false
		}
	case quire.PropNumber:
		if !c.lit(`,"n":`) {
			return dst, false
		}
		start := c.i
		for c.i < len(c.b) && strings.IndexByte("-+.eE0123456789", c.b[c.i]) >= 0 {
			c.i++
		}
		r := jsonread.New(c.b[start:c.i])
		f := r.Float()
		if !r.End() {
			return dst, false
		}
		dst = appendNumber(dst, f)
	case quire.PropCheckbox:
		dst = strconv.AppendBool(dst, c.lit(`,"b":true`))
	case quire.PropURL, quire.PropEmail, quire.PropPhoneNumber:
		if !c.lit(`,"s":`) {
			return append(dst, "null"...), c.lit("}")
		}
		dst, ok = c.nullable(dst)
	case quire.PropSelect, quire.PropStatus:
		if !c.lit(`,"id":`) {
			return dst, false
		}
		id, ok := c.plainText()
		if !ok {
			return dst, false
		}
		if o := rp.option(id); o != nil {
			dst = append(dst, o...)
		} else {
			dst = append(dst, "null"...)
		}
	case quire.PropMultiSelect, quire.PropPeople, quire.PropRelation:
		dst, ok = c.ids(dst, rp)
	case quire.PropDate:
		dst, ok = c.date(dst)
	default:
		return dst, false
	}
	return dst, ok && c.lit("}")
}

// plainText consumes a plain string (str) and returns the text it holds. An id with escapes
// (never written: ids are UUIDs) is left to readValue.
func (c *cursor) plainText() ([]byte, bool) {
	q, plain, ok := c.str()
	if !ok || !plain {
		return nil, false
	}
	return q[1 : len(q)-1], true
}

// nullable appends the string at the cursor, or null when it is empty (appendNullable).
func (c *cursor) nullable(dst []byte) ([]byte, bool) {
	q, plain, ok := c.str()
	switch {
	case !ok:
		return dst, false
	case len(q) == 2:
		return append(dst, "null"...), true
	}
	return appendStr(dst, q, plain)
}

// ids appends a multi_select's options, people or related pages from `,"ids":[…]` (and a
// relation's `,"db":…`, without which, or with another database than p's, it reads as none).
func (c *cursor) ids(dst []byte, rp *renderProp) ([]byte, bool) {
	p := rp.p
	start := len(dst)
	if !c.lit(`,"ids":[`) {
		// None (an empty list is not stored): [] whatever the relation's database.
		if p.Type == quire.PropRelation && c.lit(`,"db":`) {
			_, ok := c.plainText()
			return append(dst, "[]"...), ok
		}
		return append(dst, "[]"...), true
	}
	dst = append(dst, '[')
	wrote := 0
	for n := 0; !c.lit("]"); n++ {
		if n > 0 && !c.lit(",") {
			return dst, false
		}
		id, ok := c.plainText()
		if !ok {
			return dst, false
		}
		if p.Type == quire.PropMultiSelect {
			o := rp.option(id)
			if o == nil {
				continue
			}
			if wrote > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, o...)
			wrote++
			continue
		}
		if wrote > 0 {
			dst = append(dst, ',')
		}
		if p.Type == quire.PropPeople {
			dst = append(dst, `{"object":"user","id":`...)
		} else {
			dst = append(dst, `{"id":`...)
		}
		dst = append(append(append(dst, '"'), id...), '"', '}')
		wrote++
	}
	dst = append(dst, ']')
	if p.Type != quire.PropRelation {
		return dst, true
	}
	db := ""
	if c.lit(`,"db":`) {
		id, ok := c.plainText()
		if !ok {
			return dst, false
		}
		db = string(id)
	}
	if db != p.RelationDatabaseID {
		dst = append(dst[:start], "[]"...)
	}
	return dst, true
}

// date appends {"start","end","time_zone"} from `,"d":{"s":…[,"e":…][,"z":…]}`.
func (c *cursor) date(dst []byte) ([]byte, bool) {
	if !c.lit(`,"d":{"s":`) {
		return dst, false
	}
	q, plain, ok := c.str()
	if !ok {
		return dst, false
	}
	dst = append(dst, `{"start":`...)
	if dst, ok = appendStr(dst, q, plain); !ok {
		return dst, false
	}
	for _, f := range [...]struct{ stored, read string }{{`,"e":`, `,"end":`}, {`,"z":`, `,"time_zone":`}} {
		dst = append(dst, f.read...)
		if !c.lit(f.stored) {
			dst = append(dst, "null"...)
		} else if dst, ok = c.nullable(dst); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), c.lit("}")
}
