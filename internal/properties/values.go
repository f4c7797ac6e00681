package properties

import (
	"maps"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
)

// Values are a record's property values by property id, canonical: a Value is never empty
// (an empty rich text or list, a false checkbox, a cleared number are absent), ids are
// lower-case UUIDs, lists hold no duplicates. Values are replaced, never changed in place, so
// a copy of the map shares its Values safely.
type Values map[string]Value

// Value is one property's value; Type (the property's type when it was written) says which
// fields hold it.
type Value struct {
	Type     string
	RichText blocks.RichText // title, rich_text
	Number   float64         // number
	Text     string          // url, email, phone_number
	Checkbox bool            // checkbox: always true, false is absent
	ID       string          // select, status: the option id
	IDs      []string        // multi_select: option ids; people: user ids; relation: page ids
	// DatabaseID is a relation value's database: the value is dropped when the property
	// is pointed at another one.
	DatabaseID string
	Date       *Date  // date
	Files      []File // files
}

// Date is a date value as written: ISO 8601 dates or date-times; End and TimeZone "" for none.
type Date struct {
	Start    string
	End      string
	TimeZone string
}

// File is one file of a files value: an external URL or an uploaded file's id.
type File struct {
	Name     string
	Type     string // "external" or "file_upload"
	URL      string // external
	UploadID string // file_upload
}

// Computed holds what the server knows of a record and values of computed properties read
// from: its nodes row, and its unique_id number.
type Computed struct {
	CreatedMs    int64
	CreatedBy    string // user id
	EditedMs     int64
	EditedBy     string
	UniqueNumber int64 // the record's unique_id number; 0 for none
	// FileURL, when set, gives an uploaded file's download URL and its expiry time for the read
	// shape ({"type":"file","file":{"url","expiry_time"}}); without it, or when ok is false, an
	// upload reads as {"type":"file_upload","file_upload":{"id"}}.
	FileURL func(uploadID string) (url, expiry string, ok bool)
}

// Clone returns a copy of v (never nil).
func (v Values) Clone() Values {
	out := make(Values, len(v))
	maps.Copy(out, v)
	return out
}

// Without returns a copy of v without the values of properties ids (removed properties).
func (v Values) Without(ids ...string) Values {
	out := v.Clone()
	for _, id := range ids {
		delete(out, id)
	}
	return out
}

// Title is the record's title: the value of the title property of s (nil when empty).
func (v Values) Title(s quire.Schema) blocks.RichText {
	t := s.Title()
	if t == nil {
		return nil
	}
	val, ok := valueFor(t, v)
	if !ok {
		return nil
	}
	return val.RichText
}

// Conform returns v as schema s reads it, for storing after a schema change: values of
// removed properties and removed options are dropped, and values of retyped properties are
// converted where the meaning survives (between text types, text and number, between option
// types when the option ids still exist) and dropped otherwise. Reads (AppendValues, Scalars)
// apply the same rules, so a record not yet rewritten reads the same.
func (v Values) Conform(s quire.Schema) Values {
	out := make(Values, len(v))
	for id := range v {
		p := s.ByID(id)
		if p == nil {
			continue
		}
		if val, ok := valueFor(p, v); ok {
			out[id] = val
		}
	}
	return out
}
