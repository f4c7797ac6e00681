package properties

import (
	"slices"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonread"
	"github.com/quire-dev/quire/internal/quire"
)

// ReadBodyValues is the fast path of DecodeValues for a new record (current nil), by
// jsonread.NewBody's rule: raw, the bytes of a request's properties object, is read straight
// into the Values DecodeValues builds from jsonbody's tree of the same bytes, when every key
// names a property of s once (by name, else by id) and every value is {T: value} of a type it
// takes: title and rich_text of plain text items, number, checkbox, url, email, phone_number,
// select and status by name or id, multi_select, date (start, end), people and relation.
// ok is false for anything else, null included: the caller decodes raw with DecodeValues,
// which reports every problem. FuzzReadValues holds the two equal.
func ReadBodyValues(s quire.Schema, raw []byte) (Values, bool) {
	if len(s) > 64 {
		return nil, false
	}
	r := jsonread.NewBody(raw)
	out := Values{}
	var seen uint64
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		i := lookupIndex(s, r.Key())
		if i < 0 || !r.Once(&seen, uint(i)) || IsComputed(s[i].Type) {
			return nil, false
		}
		prop := s[i]
		// {T: value} alone, as the envelope's common case.
		r.Open('{')
		if r.Bad() || string(r.Key()) != prop.Type {
			return nil, false
		}
		val, set := readBodyValue(&r, prop)
		if r.Bad() || r.More('}', 1) {
			return nil, false
		}
		if set {
			out[prop.ID] = val
		}
	}
	if !r.End() {
		return nil, false
	}
	return out, true
}

// lookupIndex is lookup's index in s: the property named key, else the one whose id it is.
func lookupIndex(s quire.Schema, key []byte) int {
	for i, p := range s {
		if p.Name == string(key) {
			return i
		}
	}
	for i, p := range s {
		if p.ID == string(key) {
			return i
		}
	}
	return -1
}

// readBodyValue reads prop's value T of {T: value}, as decodeValue does; set is false when the
// value is empty (a false checkbox, an empty text or list). A value it does not take makes r
// bad.
func readBodyValue(r *jsonread.Reader, prop *quire.Property) (Value, bool) {
	val := Value{Type: prop.Type}
	switch prop.Type {
	case quire.PropTitle, quire.PropRichText:
		rt, ok := blocks.ReadBodyRichText(r)
		if !ok {
			r.Fail()
		}
		val.RichText = rt
		return val, len(rt) > 0
	case quire.PropNumber:
		val.Number = r.Float()
		if val.Number == 0 {
			val.Number = 0 // -0 reads as 0
		}
		return val, true
	case quire.PropCheckbox:
		val.Checkbox = r.Bool()
		return val, val.Checkbox
	case quire.PropURL, quire.PropEmail, quire.PropPhoneNumber:
		val.Text = r.Text()
		if val.Text == "" {
			return Value{}, false
		}
		if !validText(prop.Type, val.Text) {
			r.Fail()
		}
		return val, true
	case quire.PropSelect, quire.PropStatus:
		o := readOption(r, prop)
		if o == nil {
			return val, false
		}
		val.ID = o.ID
		return val, true
	case quire.PropMultiSelect:
		r.Open('[')
		for n := 0; r.More(']', n); n++ {
			o := readOption(r, prop)
			if o == nil || n == MaxArray {
				r.Fail()
				return val, false
			}
			if !slices.Contains(val.IDs, o.ID) {
				val.IDs = append(val.IDs, o.ID)
			}
		}
		return val, len(val.IDs) > 0
	case quire.PropDate:
		val.Date = readDate(r)
		return val, val.Date != nil
	case quire.PropPeople, quire.PropRelation:
		val.IDs = readRefs(r, prop.Type)
		if prop.Type == quire.PropRelation {
			val.DatabaseID = prop.RelationDatabaseID
		}
		return val, len(val.IDs) > 0
	}
	r.Fail() // files, and any type to come
	return val, false
}

// validText is decodeText's check of a non-empty url, email or phone number, without a report.
func validText(typ, s string) bool {
	switch typ {
	case quire.PropURL:
		return length(s) <= MaxTextLength && blocks.ValidURL(s)
	case quire.PropEmail:
		return length(s) <= MaxEmailLength && validEmail(s)
	}
	return length(s) <= MaxPhoneLength && validPhone(s)
}

// readOption reads {"name":…} or {"id":…} and returns the option of prop it names, or nil (r
// bad): resolveOption's common case.
func readOption(r *jsonread.Reader, prop *quire.Property) *quire.Option {
	var o *quire.Option
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		if n > 0 {
			r.Fail() // both, or a colour: resolveOption checks them
			return nil
		}
		switch string(r.Key()) {
		case "name":
			o = findOption(prop.Options, "", r.Text())
		case "id":
			if id := r.Text(); id != "" {
				o = findOption(prop.Options, id, "")
			}
		}
	}
	if o == nil || r.Bad() {
		r.Fail()
		return nil
	}
	return o
}

// readDate reads {start, end?}, as decodeDate does when nothing is wrong; a time_zone, or
// anything decodeDate would report, makes r bad.
func readDate(r *jsonread.Reader) *Date {
	var start, end string
	var seen uint64
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch string(r.Key()) {
		case "start":
			if r.Once(&seen, 0) {
				start = r.Text()
			}
		case "end":
			if r.Once(&seen, 1) && !r.Null() {
				end = r.Text()
			}
		default:
			r.Fail()
		}
	}
	if r.Bad() || seen&1 == 0 {
		r.Fail()
		return nil
	}
	startMs, _, valid := quire.ParseDate(start)
	if !valid {
		r.Fail()
		return nil
	}
	if end != "" {
		if endMs, _, valid := quire.ParseDate(end); !valid || endMs < startMs {
			r.Fail()
			return nil
		}
	}
	return &Date{Start: start, End: end}
}

// readRefs reads people ([{object?: "user", id}]) or relation ([{id}]), as decodeRefs does
// when nothing is wrong.
func readRefs(r *jsonread.Reader, typ string) []string {
	var ids []string
	r.Open('[')
	for n := 0; r.More(']', n); n++ {
		if n == MaxArray {
			r.Fail()
			return nil
		}
		var id string
		var seen uint64
		r.Open('{')
		for m := 0; r.More('}', m); m++ {
			switch string(r.Key()) {
			case "id":
				if r.Once(&seen, 0) {
					id = r.Text()
				}
			case "object":
				if typ != quire.PropPeople || !r.Once(&seen, 1) || r.OneOf([]string{"user"}) != "user" {
					r.Fail()
				}
			default:
				r.Fail()
			}
		}
		canon, valid := quire.CanonicalID(id)
		if r.Bad() || seen&1 == 0 || !valid {
			r.Fail()
			return nil
		}
		if !slices.Contains(ids, canon) {
			ids = append(ids, canon)
		}
	}
	return ids
}
