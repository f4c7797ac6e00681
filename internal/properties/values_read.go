package properties

import (
	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonread"
)

// readValues reads the stored form by hand: rendering a page of 100 records spent most of its
// time in encoding/json's reflection. ok is false for anything it does not take (a repeated
// key, an unknown field, a null inside a list), which unmarshalValuesJSON then reads;
// FuzzReadValues holds the two equal wherever ok is true.
func readValues(raw []byte) (Values, bool) {
	r := jsonread.New(raw)
	out := Values{}
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		id := string(r.Key())
		if _, dup := out[id]; dup {
			r.Fail()
		}
		out[id] = readValue(&r)
	}
	return out, r.End()
}

// typeNames are the stored types, kept without a copy.
var typeNames = []string{"title", "rich_text", "number", "select", "multi_select", "status", "date", "checkbox",
	"url", "email", "phone_number", "people", "relation", "files"}

func readValue(r *jsonread.Reader) Value {
	var val Value
	var got uint16
	once := func(bit uint) {
		if got&(1<<bit) != 0 {
			r.Fail()
		}
		got |= 1 << bit
	}
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch string(r.Key()) {
		case "t":
			once(0)
			if !r.Null() {
				val.Type = r.OneOf(typeNames)
			}
		case "rt":
			once(1)
			// As a json.RawMessage then UnmarshalRichText: null reads as no rich text.
			val.RichText = blocks.ReadRichText(r)
		case "r":
			once(1) // with "rt" too: a value holding both is left to encoding/json
			val.RichText = readShortRichText(r)
		case "n":
			once(2)
			if !r.Null() {
				val.Number = r.Float()
			}
		case "s":
			once(3)
			val.Text = nullableString(r)
		case "b":
			once(4)
			if !r.Null() {
				val.Checkbox = r.Bool()
			}
		case "id":
			once(5)
			val.ID = nullableString(r)
		case "ids":
			once(6)
			val.IDs = readStrings(r)
		case "db":
			once(7)
			val.DatabaseID = nullableString(r)
		case "d":
			once(8)
			if !r.Null() {
				val.Date = readStoredDate(r)
			}
		case "f":
			once(9)
			val.Files = readStoredFiles(r)
		default:
			r.Fail()
		}
	}
	return val
}

func nullableString(r *jsonread.Reader) string {
	if r.Null() {
		return ""
	}
	return r.Text()
}

// readStrings reads a list of strings; null is no list, [] an empty one, as encoding/json.
func readStrings(r *jsonread.Reader) []string {
	if r.Null() {
		return nil
	}
	out := []string{}
	r.Open('[')
	for n := 0; r.More(']', n); n++ {
		out = append(out, r.Text())
	}
	return out
}

func readStoredDate(r *jsonread.Reader) *Date {
	d := &Date{}
	var got uint8
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		var bit uint8
		switch string(r.Key()) {
		case "s":
			bit, d.Start = 1, nullableString(r)
		case "e":
			bit, d.End = 2, nullableString(r)
		case "z":
			bit, d.TimeZone = 4, nullableString(r)
		default:
			r.Fail()
		}
		if got&bit != 0 {
			r.Fail()
		}
		got |= bit
	}
	return d
}

// readStoredFiles reads a files list; an empty one reads as none, as unmarshalValuesJSON
// appends each file to a nil list.
func readStoredFiles(r *jsonread.Reader) []File {
	if r.Null() {
		return nil
	}
	var out []File
	r.Open('[')
	for n := 0; r.More(']', n); n++ {
		var f File
		var got uint8
		r.Open('{')
		for k := 0; r.More('}', k); k++ {
			var bit uint8
			switch string(r.Key()) {
			case "n":
				bit, f.Name = 1, nullableString(r)
			case "t":
				bit, f.Type = 2, nullableString(r)
			case "u":
				bit, f.URL = 4, nullableString(r)
			case "id":
				bit, f.UploadID = 8, nullableString(r)
			default:
				r.Fail()
			}
			if got&bit != 0 {
				r.Fail()
			}
			got |= bit
		}
		out = append(out, f)
	}
	return out
}
