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
}

// renderProp is a property with its parts of the read shape written out.
type renderProp struct {
	p    *quire.Property
	head []byte   // `"Name":{"id":…,"type":…,"T":`, after a comma but for the first property
	opts [][]byte // the options' read shape, in p.Options order
}

// NewRenderer prepares the rendering of records of schema s.
func NewRenderer(s quire.Schema) *Renderer {
	r := &Renderer{schema: s, props: make([]renderProp, len(s))}
	for i, p := range s {
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

// member is one stored value: its property id and its JSON, slices of the stored bytes.
type member struct{ id, val []byte }

// storedMembers splits raw into its members when readValues would read it: one object whose
// keys have no escapes, each once, and each value one readValue takes (checked as it is
// rendered, or here for those no property shows). Stored keys are sorted (MarshalValues), so
// keys out of order are left to readValues too, which finds any repeated one.
func storedMembers(raw []byte, buf []member) ([]member, bool) {
	if len(raw) == 0 {
		return buf, true // UnmarshalValues: none
	}
	c := cursor{b: raw}
	if !c.lit("{") {
		return nil, false
	}
	for n := 0; !c.lit("}"); n++ {
		if n > 0 && !c.lit(",") {
			return nil, false
		}
		q, plain, ok := c.str()
		if !ok || !plain || !c.lit(":") {
			return nil, false
		}
		id := q[1 : len(q)-1]
		if len(buf) > 0 && bytes.Compare(buf[len(buf)-1].id, id) >= 0 {
			return nil, false
		}
		end := valueEnd(raw, c.i)
		if end < 0 {
			return nil, false
		}
		buf = append(buf, member{id: id, val: raw[c.i:end]})
		c.i = end
	}
	return buf, c.i == len(raw)
}

func (r *Renderer) appendFast(dst, raw []byte, c Computed) ([]byte, bool) {
	var arr [16]member
	members, ok := storedMembers(raw, arr[:0])
	if !ok {
		return dst, false
	}
	used := 0
	dst = append(dst, '{')
	for i := range r.props {
		rp := &r.props[i]
		var val []byte
		for _, m := range members {
			if string(m.id) == rp.p.ID {
				val = m.val
				used++
				break
			}
		}
		if dst, ok = rp.appendStored(dst, val, c); !ok {
			return dst, false
		}
	}
	if used < len(members) {
		// Values no property shows (removed properties, filter_properties) are not rendered,
		// but a record readValues refuses for one of them is still left to it.
		for _, m := range members {
			if r.schema.ByID(string(m.id)) == nil {
				if _, ok := readOne(m.val); !ok {
					return dst, false
				}
			}
		}
	}
	return append(dst, '}'), true
}

// readOne reads one stored value as readValues does.
func readOne(val []byte) (Value, bool) {
	r := jsonread.New(val)
	v := readValue(&r)
	return v, r.End()
}

// appendStored appends the property's name and AppendValue's {"id","type",T: value} for its
// stored value val (nil: none). ok is false when readValue does not take val.
func (rp *renderProp) appendStored(dst, val []byte, c Computed) ([]byte, bool) {
	dst = append(dst, rp.head...)
	mark := len(dst)
	ok := false
	if val != nil {
		cur := cursor{b: val}
		dst, ok = cur.bare(dst, rp)
		ok = ok && cur.i == len(val)
	}
	if !ok {
		dst = dst[:mark]
		var vals Values
		if val != nil {
			v, ok := readOne(val)
			if !ok {
				return dst, false
			}
			vals = Values{rp.p.ID: v}
		}
		dst = appendBare(dst, rp.p, vals, c)
	}
	return appendValueTail(dst, rp.p), true
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
		if c.lit("}") {
			return append(dst, "[]"...), true
		}
		if !c.lit(`,"rt":`) {
			return dst, false
		}
		dst, ok = c.richText(dst)
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
