package views

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/quire-dev/quire/internal/quire"
)

// Meta is what the caller keeps beside a view.
type Meta struct {
	ID             string
	DatabaseID     string
	CreatedTime    int64 // Unix milliseconds
	LastEditedTime int64 // Unix milliseconds
	InTrash        bool
}

// Encode writes the read shape of v against the schema (pruned as Read does) with a fixed key
// order: {"object":"database_view","id","database_id","name","type","property_layout",
// "filter","sorts","group_by","config","page_sort" (detail only),"created_time",
// "last_edited_time","in_trash"}. Config keys come in the order of the kind's table in
// docs/api.md, aggregations in schema order.
func Encode(s quire.Schema, m Meta, v *View, detail bool) json.RawMessage {
	r := Read(s, v, detail)
	var b bytes.Buffer
	b.WriteString(`{"object":"database_view","id":`)
	writeString(&b, m.ID)
	b.WriteString(`,"database_id":`)
	writeString(&b, m.DatabaseID)
	b.WriteString(`,"name":`)
	writeString(&b, r.Name)
	b.WriteString(`,"type":`)
	writeString(&b, r.Type)
	b.WriteString(`,"property_layout":`)
	writeJSON(&b, orEmpty(r.PropertyLayout))
	b.WriteString(`,"filter":`)
	writeJSON(&b, r.Filter)
	b.WriteString(`,"sorts":`)
	writeJSON(&b, orEmpty(r.Sorts))
	b.WriteString(`,"group_by":`)
	writeJSON(&b, r.GroupBy)
	b.WriteString(`,"config":`)
	writeConfig(&b, s, r.Type, r.Config)
	if detail {
		b.WriteString(`,"page_sort":`)
		writeJSON(&b, orEmpty(r.PageSort))
	}
	b.WriteString(`,"created_time":`)
	writeString(&b, quire.FormatMillis(m.CreatedTime))
	b.WriteString(`,"last_edited_time":`)
	writeString(&b, quire.FormatMillis(m.LastEditedTime))
	b.WriteString(`,"in_trash":`)
	b.WriteString(strconv.FormatBool(m.InTrash))
	b.WriteByte('}')
	return b.Bytes()
}

// writeConfig writes the keys of kind in their fixed order; property references are null
// when unset.
func writeConfig(b *bytes.Buffer, s quire.Schema, kind string, c Config) {
	b.WriteByte('{')
	for i, k := range configKeys[kind] {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, k)
		b.WriteByte(':')
		switch k {
		case "wrap":
			writeJSON(b, c.Wrap)
		case "freeze_columns":
			writeJSON(b, c.FreezeColumns)
		case "aggregations":
			writeAggregations(b, s, c.Aggregations)
		case "card_size":
			writeString(b, c.CardSize)
		case "card_preview":
			writeString(b, c.CardPreview)
		case "cover_property":
			writeRef(b, c.CoverProperty)
		case "fit_image":
			writeJSON(b, c.FitImage)
		case "date_property":
			writeRef(b, c.DateProperty)
		case "start_property":
			writeRef(b, c.StartProperty)
		case "end_property":
			writeRef(b, c.EndProperty)
		case "show_table":
			writeJSON(b, c.ShowTable)
		case "show_icons":
			writeJSON(b, c.ShowIcons)
		case "title_visible":
			writeJSON(b, c.TitleVisible)
		case "submit_text":
			writeString(b, c.SubmitText)
		case "allow_multiple_submissions":
			writeJSON(b, c.AllowMultipleSubmissions)
		}
	}
	b.WriteByte('}')
}

// writeAggregations writes {property_id: function} in schema order.
func writeAggregations(b *bytes.Buffer, s quire.Schema, aggs map[string]string) {
	b.WriteByte('{')
	n := 0
	for _, p := range s {
		fn, ok := aggs[p.ID]
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		writeString(b, p.ID)
		b.WriteByte(':')
		writeString(b, fn)
	}
	b.WriteByte('}')
}

func writeRef(b *bytes.Buffer, id string) {
	if id == "" {
		b.WriteString("null")
		return
	}
	writeString(b, id)
}

func writeString(b *bytes.Buffer, s string) { writeJSON(b, s) }

// writeJSON writes v with encoding/json; the values written here (strings, numbers, booleans
// and this package's types, whose members are never empty after Read) cannot fail to encode.
func writeJSON(b *bytes.Buffer, v any) {
	out, err := json.Marshal(v)
	if err != nil {
		b.WriteString("null")
		return
	}
	b.Write(out)
}

// orEmpty makes a nil slice encode as [].
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Marshal returns the stored form of v: its JSON, with only the config keys of its kind.
func Marshal(v *View) ([]byte, error) {
	c := *v
	c.Config = v.Config.only(v.Type)
	return json.Marshal(&c)
}

// Unmarshal reads a stored form written by Marshal.
func Unmarshal(data []byte) (*View, error) {
	var v View
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return &v, nil
}
