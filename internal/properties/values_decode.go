package properties

import (
	"slices"
	"strconv"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// DecodeValues reads the `properties` of a record: POST /v2/pages with a database parent,
// PATCH /v2/pages/:id, and the create and update mutations. Keys name properties by name or,
// failing that, by id; values take Notion's page property value shapes ({T: value}, with
// "id" and "type" allowed as a read shape sends them back; title and rich_text also as a bare
// rich-text array; null clears a property). The result is current (nil for a new record)
// with the given properties replaced. v is the parsed object or its raw JSON. Errors are a
// *quire.Error with a detail per problem, paths under path.
func DecodeValues(s quire.Schema, v any, path string, current Values) (Values, error) {
	var p quire.Problems
	fs, ok := fields(&p, path, v)
	if !ok {
		return nil, p.Err()
	}
	out := current.Clone()
	seen := map[string]string{}
	for _, f := range fs {
		fp := jsonbody.Join(path, f.key)
		prop := lookup(s, f.key)
		switch {
		case prop == nil:
			p.Add(fp, quire.ReasonInvalidValue, "Could not find property with name or id: "+f.key+".")
			continue
		case seen[prop.ID] != "":
			p.Add(fp, quire.ReasonInvalidValue, "Names the same property as "+seen[prop.ID]+".")
			continue
		case IsComputed(prop.Type):
			p.Add(fp, quire.ReasonInvalidValue, prop.Type+" values are computed by the server.")
			continue
		}
		seen[prop.ID] = fp
		before := len(p.Details)
		val, set := decodeValue(&p, fp, prop, f.val)
		switch {
		case len(p.Details) > before:
		case set:
			out[prop.ID] = val
		default:
			delete(out, prop.ID)
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeValue reads the value of prop at fp; set is false when it clears the property.
func decodeValue(p *quire.Problems, fp string, prop *quire.Property, v any) (Value, bool) {
	var body any
	vp := fp
	switch t := v.(type) {
	case nil:
		return Value{}, false
	case []any:
		if prop.Type != quire.PropTitle && prop.Type != quire.PropRichText {
			p.Add(fp, quire.ReasonInvalidType, "Expected an object: {\""+prop.Type+"\": …}.")
			return Value{}, false
		}
		body = t
	case map[string]any:
		if !envelope(p, fp, prop, t) {
			return Value{}, false
		}
		body, vp = t[prop.Type], jsonbody.Join(fp, prop.Type)
	default:
		p.Add(fp, quire.ReasonInvalidType, "Expected an object: {\""+prop.Type+"\": …}.")
		return Value{}, false
	}
	if body == nil {
		return Value{}, false
	}
	val := Value{Type: prop.Type}
	switch prop.Type {
	case quire.PropTitle, quire.PropRichText:
		val.RichText = blocks.DecodeRichText(p, vp, body)
		return val, len(val.RichText) > 0
	case quire.PropNumber:
		f, ok := number(p, vp, body)
		val.Number = f
		return val, ok
	case quire.PropCheckbox:
		b, ok := body.(bool)
		if !ok {
			p.Add(vp, quire.ReasonInvalidType, "Expected true or false.")
		}
		val.Checkbox = b
		return val, b
	case quire.PropURL, quire.PropEmail, quire.PropPhoneNumber:
		return decodeText(p, vp, prop.Type, body)
	case quire.PropSelect, quire.PropStatus:
		m, ok := jsonbody.Object(p, vp, body)
		if !ok {
			return val, false
		}
		o := resolveOption(p, vp, m, prop)
		if o == nil {
			return val, false
		}
		val.ID = o.ID
		return val, true
	case quire.PropMultiSelect:
		arr, ok := jsonbody.Array(p, vp, body, MaxArray)
		for i, e := range arr {
			ip := jsonbody.Index(vp, i)
			if m, ok := jsonbody.Object(p, ip, e); ok {
				if o := resolveOption(p, ip, m, prop); o != nil && !slices.Contains(val.IDs, o.ID) {
					val.IDs = append(val.IDs, o.ID)
				}
			}
		}
		return val, ok && len(val.IDs) > 0
	case quire.PropDate:
		val.Date = decodeDate(p, vp, body)
		return val, val.Date != nil
	case quire.PropPeople, quire.PropRelation:
		val.IDs = decodeRefs(p, vp, prop.Type, body)
		if prop.Type == quire.PropRelation {
			val.DatabaseID = prop.RelationDatabaseID
		}
		return val, len(val.IDs) > 0
	case quire.PropFiles:
		val.Files = decodeFiles(p, vp, body)
		return val, len(val.Files) > 0
	}
	return Value{}, false
}

// envelope checks the object around a value: {T: value}, with "id" and "type" as a read shape
// has them (and relation's "has_more"). It reports a value under another type's key as the
// wrong type rather than an unknown field.
func envelope(p *quire.Problems, fp string, prop *quire.Property, m map[string]any) bool {
	if _, ok := m[prop.Type]; ok && len(m) == 1 {
		return true // {T: value} alone, as most bodies send it: nothing to check or sort
	}
	before := len(p.Details)
	wrongType := false
	for _, k := range jsonbody.SortedKeys(m) {
		switch {
		case k == prop.Type || k == "id" || k == "type":
		case k == "has_more" && prop.Type == quire.PropRelation:
			if _, ok := m[k].(bool); !ok {
				p.Add(jsonbody.Join(fp, k), quire.ReasonInvalidType, "Expected true or false.")
			}
		case Known(k) || notYet[k]:
			p.Add(jsonbody.Join(fp, k), quire.ReasonInvalidValue, "The property is of type "+prop.Type+", not "+k+".")
			wrongType = true
		default:
			jsonbody.UnknownKey(p, fp, k)
		}
	}
	if id, ok := jsonbody.Str(p, fp, m, "id"); ok && id != prop.ID {
		p.Add(jsonbody.Join(fp, "id"), quire.ReasonInvalidValue, "The property's id is "+prop.ID+".")
	}
	if t, ok := jsonbody.Str(p, fp, m, "type"); ok && t != prop.Type {
		p.Add(jsonbody.Join(fp, "type"), quire.ReasonInvalidValue, "The property is of type "+prop.Type+".")
	}
	if _, ok := m[prop.Type]; !ok && !wrongType {
		p.Add(jsonbody.Join(fp, prop.Type), quire.ReasonRequired, "Field \""+prop.Type+"\" is required.")
	}
	return len(p.Details) == before
}

// resolveOption finds the option an {id?, name?, color?} object names. Options are made in
// the database schema, never by writing a value: an unknown name is an invalid_value.
func resolveOption(p *quire.Problems, ip string, m map[string]any, prop *quire.Property) *quire.Option {
	before := len(p.Details)
	jsonbody.Unknown(p, ip, m, "id", "name", "color")
	jsonbody.Str(p, ip, m, "color") // a read shape sends it back; the option's own colour stands
	id, hasID := jsonbody.Str(p, ip, m, "id")
	name, hasName := jsonbody.Str(p, ip, m, "name")
	if len(p.Details) > before {
		return nil
	}
	var o *quire.Option
	switch {
	case hasID:
		if o = findOption(prop.Options, id, ""); o == nil {
			p.Add(jsonbody.Join(ip, "id"), quire.ReasonInvalidValue, "The property has no option with this id.")
		} else if hasName && o.Name != name {
			p.Add(jsonbody.Join(ip, "name"), quire.ReasonInvalidValue, "The option with this id is named "+strconv.Quote(o.Name)+".")
			o = nil
		}
	case hasName:
		if o = findOption(prop.Options, "", name); o == nil {
			p.Add(jsonbody.Join(ip, "name"), quire.ReasonInvalidValue, "The property has no option named "+strconv.Quote(name)+"; add it to the database first.")
		}
	default:
		p.Add(jsonbody.Join(ip, "name"), quire.ReasonRequired, "Name an option by name or id.")
	}
	return o
}

func decodeText(p *quire.Problems, vp, typ string, body any) (Value, bool) {
	s, ok := body.(string)
	if !ok {
		p.Add(vp, quire.ReasonInvalidType, "Expected a string or null.")
		return Value{}, false
	}
	if s == "" {
		return Value{}, false // as null: an empty text is no value
	}
	switch typ {
	case quire.PropURL:
		switch {
		case length(s) > MaxTextLength:
			p.AddDetail(quire.Beyond(vp, quire.ReasonTooLong, MaxTextLength, int64(length(s))), "The URL is longer than "+strconv.Itoa(MaxTextLength)+" characters.")
		case !blocks.ValidURL(s):
			p.Add(vp, quire.ReasonInvalidValue, "Not a valid URL.")
		}
	case quire.PropEmail:
		switch {
		case length(s) > MaxEmailLength:
			p.AddDetail(quire.Beyond(vp, quire.ReasonTooLong, MaxEmailLength, int64(length(s))), "The email address is longer than "+strconv.Itoa(MaxEmailLength)+" characters.")
		case !validEmail(s):
			p.Add(vp, quire.ReasonInvalidValue, "Not a valid email address.")
		}
	case quire.PropPhoneNumber:
		switch {
		case length(s) > MaxPhoneLength:
			p.AddDetail(quire.Beyond(vp, quire.ReasonTooLong, MaxPhoneLength, int64(length(s))), "The phone number is longer than "+strconv.Itoa(MaxPhoneLength)+" characters.")
		case !validPhone(s):
			p.Add(vp, quire.ReasonInvalidValue, "Not a valid phone number.")
		}
	}
	return Value{Type: typ, Text: s}, true
}
