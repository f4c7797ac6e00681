package client

import "encoding/json"

// PropertyValue is the value of one page property as the API writes and reads it
// ({"type": "select", "select": {"name": "Done"}}). The constructors below build the common
// ones; any other is a map literal of the API's shape.
type PropertyValue map[string]any

// TitleValue is a title property's value.
func TitleValue(text string) PropertyValue { return PropertyValue{"title": Text(text)} }

// RichTextValue is a rich_text property's value.
func RichTextValue(text string) PropertyValue { return PropertyValue{"rich_text": Text(text)} }

// NumberValue is a number property's value.
func NumberValue(n float64) PropertyValue { return PropertyValue{"number": n} }

// SelectValue names a select option (by name or id).
func SelectValue(name string) PropertyValue {
	return PropertyValue{"select": map[string]string{"name": name}}
}

// MultiSelectValue names multi_select options.
func MultiSelectValue(names ...string) PropertyValue {
	opts := make([]map[string]string, len(names))
	for i, n := range names {
		opts[i] = map[string]string{"name": n}
	}
	return PropertyValue{"multi_select": opts}
}

// CheckboxValue is a checkbox property's value.
func CheckboxValue(b bool) PropertyValue { return PropertyValue{"checkbox": b} }

// DateValue is a date property's value: start and end are YYYY-MM-DD or RFC 3339; end may be "".
func DateValue(start, end string) PropertyValue {
	d := map[string]any{"start": start}
	if end != "" {
		d["end"] = end
	}
	return PropertyValue{"date": d}
}

// Type is the value's type as read ("title", "number" …).
func (v PropertyValue) Type() string { s, _ := v["type"].(string); return s }

// PlainText is the text of a title or rich_text value, as read.
func (v PropertyValue) PlainText() string {
	var items []RichText
	if decode(v[v.Type()], &items) != nil {
		return ""
	}
	return PlainText(items)
}

// Number is a number value as read; ok is false when it is empty or of another type.
func (v PropertyValue) Number() (n float64, ok bool) {
	n, ok = v["number"].(float64)
	return n, ok
}

// SelectName is the option name of a select or status value as read; "" when empty.
func (v PropertyValue) SelectName() string {
	o, _ := v[v.Type()].(map[string]any)
	s, _ := o["name"].(string)
	return s
}

// Date is a date value as read: start, and end ("" for a single date); ok is false when the
// value is empty or of another type.
func (v PropertyValue) Date() (start, end string, ok bool) {
	var d struct {
		Start string  `json:"start"`
		End   *string `json:"end"`
	}
	if v.Type() != "date" || decode(v["date"], &d) != nil || d.Start == "" {
		return "", "", false
	}
	if d.End != nil {
		end = *d.End
	}
	return d.Start, end, true
}

// Checked is a checkbox value as read (false for any other type).
func (v PropertyValue) Checked() bool { b, _ := v["checkbox"].(bool); return b }

// OptionNames is the option names of a multi_select value as read.
func (v PropertyValue) OptionNames() []string {
	var opts []struct {
		Name string `json:"name"`
	}
	if decode(v["multi_select"], &opts) != nil {
		return nil
	}
	names := make([]string, len(opts))
	for i, o := range opts {
		names[i] = o.Name
	}
	return names
}

// Decode decodes the value's type-keyed object (e.g. v["date"]) into out.
func (v PropertyValue) Decode(out any) error { return decode(v[v.Type()], out) }

// decode converts a generic JSON value into out.
func decode(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// PropertySchema is one property of a database's schema ({"select": {"options": […]}}).
type PropertySchema map[string]any

// TitleProperty is the database's title property (every database has exactly one).
func TitleProperty() PropertySchema { return PropertySchema{"title": map[string]any{}} }

// RichTextProperty is a text property.
func RichTextProperty() PropertySchema { return PropertySchema{"rich_text": map[string]any{}} }

// NumberProperty is a number property.
func NumberProperty() PropertySchema { return PropertySchema{"number": map[string]any{}} }

// DateProperty is a date property.
func DateProperty() PropertySchema { return PropertySchema{"date": map[string]any{}} }

// CheckboxProperty is a checkbox property.
func CheckboxProperty() PropertySchema { return PropertySchema{"checkbox": map[string]any{}} }

// SelectProperty is a select property with options named names.
func SelectProperty(names ...string) PropertySchema {
	return PropertySchema{"select": map[string]any{"options": optionList(names)}}
}

// MultiSelectProperty is a multi_select property with options named names.
func MultiSelectProperty(names ...string) PropertySchema {
	return PropertySchema{"multi_select": map[string]any{"options": optionList(names)}}
}

func optionList(names []string) []map[string]string {
	opts := make([]map[string]string, len(names))
	for i, n := range names {
		opts[i] = map[string]string{"name": n}
	}
	return opts
}

// ID is the property's id as read (database properties are keyed by name).
func (p PropertySchema) ID() string { s, _ := p["id"].(string); return s }

// Type is the property's type as read.
func (p PropertySchema) Type() string { s, _ := p["type"].(string); return s }
