package blocks

import "github.com/quire-dev/quire/internal/jsonread"

// Stored rich text is read on every record and page a response shows; encoding/json spent most
// of a database query's rendering in reflection over wireItem. ReadRichText reads the stored
// shape by hand and leaves anything unusual (unknown keys, duplicates, nulls where AppendRichText
// writes none) to the wireItem decoding, whose result it equals (FuzzReadRichText).

// itemTypes and colors are the values those fields mostly hold, kept without a copy.
var (
	itemTypes = []string{"text", "mention", "equation"}
	colors    = []string{"default"}
)

// ReadRichText reads a rich-text array (or null) at r, as UnmarshalRichText does.
func ReadRichText(r *jsonread.Reader) RichText {
	if r.Null() {
		return nil
	}
	r.Open('[')
	rt := RichText{}
	for n := 0; r.More(']', n); n++ {
		rt = append(rt, readItem(r))
	}
	return rt
}

// Fields of an object already read: a repeated key is left to encoding/json, which merges.
type seen uint16

func (s *seen) once(r *jsonread.Reader, bit uint) {
	if *s&(1<<bit) != 0 {
		r.Fail()
	}
	*s |= 1 << bit
}

func readItem(r *jsonread.Reader) Item {
	var it Item
	var text *Text
	var eq *Equation
	var m *Mention
	var got seen
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch string(r.Key()) {
		case "type":
			got.once(r, 0)
			it.Type = readOneOf(r, itemTypes)
		case "text":
			got.once(r, 1)
			text = readText(r)
		case "mention":
			got.once(r, 2)
			m = readMention(r)
		case "equation":
			got.once(r, 3)
			eq = readEquation(r)
		case "annotations":
			got.once(r, 4)
			it.Annotations = readAnnotations(r)
		case "plain_text":
			got.once(r, 5)
			it.PlainText = readString(r)
		case "href":
			got.once(r, 6)
			it.Href = readString(r)
		default:
			r.Fail()
		}
	}
	// As wireRich.rich: the first kind present wins.
	switch {
	case text != nil:
		it.Text = text
	case eq != nil:
		it.Equation = eq
	case m != nil:
		it.Mention = m
	}
	return it
}

// readString reads a string field; null leaves it empty, as encoding/json leaves a string.
func readString(r *jsonread.Reader) string {
	if r.Null() {
		return ""
	}
	return r.Text()
}

func readOneOf(r *jsonread.Reader, common []string) string {
	if r.Null() {
		return ""
	}
	return r.OneOf(common)
}

func readBool(r *jsonread.Reader) bool {
	if r.Null() {
		return false
	}
	return r.Bool()
}

func readText(r *jsonread.Reader) *Text {
	if r.Null() {
		return nil
	}
	t := &Text{}
	var got seen
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch string(r.Key()) {
		case "content":
			got.once(r, 0)
			t.Content = readString(r)
		case "link":
			got.once(r, 1)
			if r.Null() {
				continue
			}
			t.Link = &Link{URL: readOnlyString(r, "url")}
		default:
			r.Fail()
		}
	}
	return t
}

// readOnlyString reads an object whose one field is the string key.
func readOnlyString(r *jsonread.Reader, key string) string {
	var s string
	var got seen
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		if string(r.Key()) != key {
			r.Fail()
			return ""
		}
		got.once(r, 0)
		s = readString(r)
	}
	return s
}

func readEquation(r *jsonread.Reader) *Equation {
	if r.Null() {
		return nil
	}
	return &Equation{Expression: readOnlyString(r, "expression")}
}

func readMention(r *jsonread.Reader) *Mention {
	if r.Null() {
		return nil
	}
	m := &Mention{}
	var got seen
	// As wireRich.rich: the id of the last of user, page, database present.
	var ids [3]*string
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		i := -1
		switch string(r.Key()) {
		case "type":
			got.once(r, 0)
			m.Type = readString(r)
		case "user":
			i = 0
		case "page":
			i = 1
		case "database":
			i = 2
		case "date":
			got.once(r, 4)
			if r.Null() {
				continue
			}
			m.Date = readDate(r)
		default:
			r.Fail()
		}
		if i >= 0 {
			got.once(r, uint(1+i))
			if !r.Null() {
				id := readID(r, i == 0)
				ids[i] = &id
			}
		}
	}
	for _, id := range ids {
		if id != nil {
			m.ID = *id
		}
	}
	return m
}

// readID reads {"id": …}; a user mention also says "object":"user", which wireID ignores: only
// that exact value is taken here.
func readID(r *jsonread.Reader, user bool) string {
	var id string
	var got seen
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch string(r.Key()) {
		case "id":
			got.once(r, 0)
			id = readString(r)
		case "object":
			got.once(r, 1)
			if !user || r.Text() != "user" {
				r.Fail()
			}
		default:
			r.Fail()
		}
	}
	return id
}

func readDate(r *jsonread.Reader) *Date {
	d := &Date{}
	var got seen
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch string(r.Key()) {
		case "start":
			got.once(r, 0)
			d.Start = readString(r)
		case "end":
			got.once(r, 1)
			d.End = readString(r)
		case "time_zone":
			got.once(r, 2)
			d.TimeZone = readString(r)
		default:
			r.Fail()
		}
	}
	return d
}

func readAnnotations(r *jsonread.Reader) Annotations {
	var a Annotations
	if r.Null() {
		return a
	}
	var got seen
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch string(r.Key()) {
		case "bold":
			got.once(r, 0)
			a.Bold = readBool(r)
		case "italic":
			got.once(r, 1)
			a.Italic = readBool(r)
		case "strikethrough":
			got.once(r, 2)
			a.Strikethrough = readBool(r)
		case "underline":
			got.once(r, 3)
			a.Underline = readBool(r)
		case "code":
			got.once(r, 4)
			a.Code = readBool(r)
		case "text_color":
			got.once(r, 5)
			a.TextColor = readOneOf(r, colors)
		case "background_color":
			got.once(r, 6)
			a.BackgroundColor = readOneOf(r, colors)
		default:
			r.Fail()
		}
	}
	return a
}
