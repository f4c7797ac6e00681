package properties

import (
	"strconv"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
)

// AppendValues appends a record's `properties` as the API reads them: every property of s, by
// name, as {"id","type",T: value}, in schema order; an empty value reads as null, [] or false
// as Notion's do. Computed properties read from c.
func AppendValues(dst []byte, s quire.Schema, v Values, c Computed) []byte {
	w := objWriter{Dst: append(dst, '{')}
	for _, p := range s {
		w.Key(p.Name)
		w.Dst = AppendValue(w.Dst, p, v, c)
	}
	return append(w.Dst, '}')
}

// AppendValue appends one property's value, {"id","type",T: value} (relation adds has_more).
func AppendValue(dst []byte, p *quire.Property, v Values, c Computed) []byte {
	dst = appendBare(appendValueHead(dst, p), p, v, c)
	return appendValueTail(dst, p)
}

// appendValueHead appends {"id","type", and the type key, before the value.
func appendValueHead(dst []byte, p *quire.Property) []byte {
	w := objWriter{Dst: append(dst, '{')}
	w.Str("id", p.ID)
	w.Str("type", p.Type)
	w.Key(p.Type)
	return w.Dst
}

// appendValueTail closes what appendValueHead opened, after the value.
func appendValueTail(dst []byte, p *quire.Property) []byte {
	if p.Type == quire.PropRelation {
		dst = append(dst, `,"has_more":false`...)
	}
	return append(dst, '}')
}

// appendBare appends the value under the type key.
func appendBare(dst []byte, p *quire.Property, v Values, c Computed) []byte {
	switch p.Type {
	case quire.PropCreatedTime:
		return blocks.AppendString(dst, quire.FormatMillis(c.CreatedMs))
	case quire.PropLastEditedTime:
		return blocks.AppendString(dst, quire.FormatMillis(c.EditedMs))
	case quire.PropCreatedBy:
		return appendUser(dst, c.CreatedBy)
	case quire.PropLastEditedBy:
		return appendUser(dst, c.EditedBy)
	case quire.PropUniqueID:
		w := objWriter{Dst: append(dst, '{')}
		w.Nullable("prefix", p.UniquePrefix)
		if c.UniqueNumber > 0 {
			w.Raw("number", strconv.FormatInt(c.UniqueNumber, 10))
		} else {
			w.Raw("number", "null")
		}
		return append(w.Dst, '}')
	}
	val, ok := valueFor(p, v)
	switch p.Type {
	case quire.PropTitle, quire.PropRichText:
		return blocks.AppendRichText(dst, val.RichText)
	case quire.PropNumber:
		if !ok {
			return append(dst, "null"...)
		}
		return appendNumber(dst, val.Number)
	case quire.PropCheckbox:
		return strconv.AppendBool(dst, ok && val.Checkbox)
	case quire.PropURL, quire.PropEmail, quire.PropPhoneNumber:
		return appendNullable(dst, val.Text)
	case quire.PropSelect, quire.PropStatus:
		if !ok {
			return append(dst, "null"...)
		}
		return appendOption(dst, findOption(p.Options, val.ID, ""))
	case quire.PropMultiSelect:
		dst = append(dst, '[')
		for i, id := range val.IDs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendOption(dst, findOption(p.Options, id, ""))
		}
		return append(dst, ']')
	case quire.PropDate:
		if !ok || val.Date == nil {
			return append(dst, "null"...)
		}
		w := objWriter{Dst: append(dst, '{')}
		w.Str("start", val.Date.Start)
		w.Nullable("end", val.Date.End)
		w.Nullable("time_zone", val.Date.TimeZone)
		return append(w.Dst, '}')
	case quire.PropPeople:
		dst = append(dst, '[')
		for i, id := range val.IDs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendUser(dst, id)
		}
		return append(dst, ']')
	case quire.PropRelation:
		dst = append(dst, '[')
		for i, id := range val.IDs {
			if i > 0 {
				dst = append(dst, ',')
			}
			w := objWriter{Dst: append(dst, '{')}
			w.Str("id", id)
			dst = append(w.Dst, '}')
		}
		return append(dst, ']')
	case quire.PropFiles:
		dst = append(dst, '[')
		for i, f := range val.Files {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendFile(dst, f, c)
		}
		return append(dst, ']')
	}
	return append(dst, "null"...)
}

func appendUser(dst []byte, id string) []byte {
	w := objWriter{Dst: append(dst, '{')}
	w.Str("object", "user")
	w.Str("id", id)
	return append(w.Dst, '}')
}

func appendFile(dst []byte, f File, c Computed) []byte {
	w := objWriter{Dst: append(dst, '{')}
	w.Str("name", f.Name)
	if f.Type == "external" {
		w.Str("type", "external")
		w.Key("external")
		ew := objWriter{Dst: append(w.Dst, '{')}
		ew.Str("url", f.URL)
		w.Dst = append(ew.Dst, '}')
		return append(w.Dst, '}')
	}
	if c.FileURL != nil {
		if url, expiry, ok := c.FileURL(f.UploadID); ok {
			w.Str("type", "file")
			w.Key("file")
			fw := objWriter{Dst: append(w.Dst, '{')}
			fw.Str("url", url)
			fw.Str("expiry_time", expiry)
			w.Dst = append(fw.Dst, '}')
			return append(w.Dst, '}')
		}
	}
	w.Str("type", "file_upload")
	w.Key("file_upload")
	uw := objWriter{Dst: append(w.Dst, '{')}
	uw.Str("id", f.UploadID)
	w.Dst = append(uw.Dst, '}')
	return append(w.Dst, '}')
}

// Scalar is one record_values row of a record: ord orders a property's rows.
type Scalar struct {
	PropertyID string
	Ord        int
	Text       *string
	Num        *float64
}

// Scalars lists the record_values rows of a record with values v under schema s, as
// internal/dbquery reads them. number is the record's unique_id number (0 for none).
// Timestamps and authors are read from the nodes row, so they have no rows.
func Scalars(s quire.Schema, v Values, number int64) []Scalar {
	var out []Scalar
	for _, p := range s {
		out = append(out, PropertyScalars(p, v, number)...)
	}
	return out
}

// PropertyScalars lists the record_values rows of one property.
func PropertyScalars(p *quire.Property, v Values, number int64) []Scalar {
	text := func(s string) *string { return &s }
	num := func(f float64) *float64 { return &f }
	one := func(t *string, n *float64) []Scalar {
		return []Scalar{{PropertyID: p.ID, Text: t, Num: n}}
	}
	if p.Type == quire.PropUniqueID {
		if number <= 0 {
			return nil
		}
		return one(nil, num(float64(number)))
	}
	val, ok := valueFor(p, v)
	switch p.Type {
	case quire.PropCheckbox:
		if ok && val.Checkbox {
			return one(nil, num(1))
		}
		return one(nil, num(0))
	case quire.PropCreatedTime, quire.PropCreatedBy, quire.PropLastEditedTime, quire.PropLastEditedBy:
		return nil
	}
	if !ok {
		return nil
	}
	switch p.Type {
	case quire.PropTitle, quire.PropRichText:
		if pt := val.RichText.PlainText(); pt != "" {
			return one(text(pt), nil)
		}
	case quire.PropURL, quire.PropEmail, quire.PropPhoneNumber:
		return one(text(val.Text), nil)
	case quire.PropNumber:
		return one(nil, num(val.Number))
	case quire.PropSelect, quire.PropStatus:
		i := optionIndex(p.Options, val.ID)
		return one(text(val.ID), num(float64(i)))
	case quire.PropMultiSelect, quire.PropPeople, quire.PropRelation:
		out := make([]Scalar, len(val.IDs))
		for i, id := range val.IDs {
			out[i] = Scalar{PropertyID: p.ID, Ord: i, Text: text(id)}
		}
		return out
	case quire.PropDate:
		// The start's number only: every date filter and sort reads v_num, and a text would put
		// each record at a random place of the text index for nothing (migration 00021).
		ms, _, valid := quire.ParseDate(val.Date.Start)
		if valid {
			return one(nil, num(float64(ms)))
		}
	case quire.PropFiles:
		out := make([]Scalar, len(val.Files))
		for i, f := range val.Files {
			name := f.Name
			out[i] = Scalar{PropertyID: p.ID, Ord: i, Text: text(name)}
		}
		return out
	}
	return nil
}

func optionIndex(opts []quire.Option, id string) int {
	for i, o := range opts {
		if o.ID == id {
			return i
		}
	}
	return -1
}

// AppendPropertyItem appends the answer of GET /v2/pages/:id/properties/:property_id: a
// property_item, or for title, rich_text, people and relation a list of property_items, one
// per rich-text item, person or related page (Notion's paginated property shape, here always
// on one page: values hold at most 100 of them).
func AppendPropertyItem(dst []byte, p *quire.Property, v Values, c Computed) []byte {
	item := func(dst []byte, value func([]byte) []byte) []byte {
		w := objWriter{Dst: append(dst, '{')}
		w.Str("object", "property_item")
		w.Str("id", p.ID)
		w.Str("type", p.Type)
		w.Key(p.Type)
		w.Dst = value(w.Dst)
		return append(w.Dst, '}')
	}
	switch p.Type {
	case quire.PropTitle, quire.PropRichText, quire.PropPeople, quire.PropRelation:
	default:
		return item(dst, func(d []byte) []byte { return appendBare(d, p, v, c) })
	}
	val, _ := valueFor(p, v)
	w := objWriter{Dst: append(dst, '{')}
	w.Str("object", "list")
	w.Key("results")
	w.Dst = append(w.Dst, '[')
	n := len(val.IDs)
	if p.Type == quire.PropTitle || p.Type == quire.PropRichText {
		n = len(val.RichText)
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			w.Dst = append(w.Dst, ',')
		}
		w.Dst = item(w.Dst, func(d []byte) []byte {
			switch p.Type {
			case quire.PropTitle, quire.PropRichText:
				one := blocks.AppendRichText(nil, val.RichText[i:i+1])
				return append(d, one[1:len(one)-1]...)
			case quire.PropPeople:
				return appendUser(d, val.IDs[i])
			}
			rw := objWriter{Dst: append(d, '{')}
			rw.Str("id", val.IDs[i])
			return append(rw.Dst, '}')
		})
	}
	w.Dst = append(w.Dst, ']')
	w.Raw("next_cursor", "null")
	w.Raw("has_more", "false")
	w.Str("type", "property_item")
	w.Key("property_item")
	pw := objWriter{Dst: append(w.Dst, '{')}
	pw.Str("id", p.ID)
	pw.Raw("next_url", "null")
	pw.Str("type", p.Type)
	pw.Raw(p.Type, "{}")
	w.Dst = append(pw.Dst, '}')
	return append(w.Dst, '}')
}
