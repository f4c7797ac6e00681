package properties

import (
	"encoding/json"
	"fmt"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
)

// MarshalSchema returns the stored form of s: the JSON of quire.Schema.
func MarshalSchema(s quire.Schema) ([]byte, error) {
	if s == nil {
		s = quire.Schema{}
	}
	return json.Marshal(s)
}

// UnmarshalSchema reads a schema written by MarshalSchema.
func UnmarshalSchema(raw []byte) (quire.Schema, error) {
	var s quire.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("properties: stored schema: %w", err)
	}
	for i, p := range s {
		if p == nil {
			return nil, fmt.Errorf("properties: stored schema: property %d is null", i)
		}
	}
	return s, nil
}

// AppendSchema appends the API's read shape of s, `{"Name":{"id","name","type",T:{config}}…}`,
// in schema order.
func AppendSchema(dst []byte, s quire.Schema) []byte {
	w := objWriter{Dst: append(dst, '{')}
	for _, p := range s {
		w.Key(p.Name)
		w.Dst = AppendProperty(w.Dst, p)
	}
	return append(w.Dst, '}')
}

// AppendProperty appends one schema entry, `{"id","name","type",T:{config}}`.
func AppendProperty(dst []byte, p *quire.Property) []byte {
	w := objWriter{Dst: append(dst, '{')}
	w.Str("id", p.ID)
	w.Str("name", p.Name)
	w.Str("type", p.Type)
	w.Key(p.Type)
	w.Dst = appendConfig(w.Dst, p)
	return append(w.Dst, '}')
}

func appendConfig(dst []byte, p *quire.Property) []byte {
	w := objWriter{Dst: append(dst, '{')}
	switch p.Type {
	case quire.PropNumber:
		f := p.NumberFormat
		if f == "" {
			f = defaultNumberFormat
		}
		w.Str("format", f)
	case quire.PropSelect, quire.PropMultiSelect:
		w.Key("options")
		w.Dst = appendOptions(w.Dst, p.Options)
	case quire.PropStatus:
		w.Key("options")
		w.Dst = appendOptions(w.Dst, p.Options)
		w.Key("groups")
		w.Dst = append(w.Dst, '[')
		for i, g := range p.Groups {
			if i > 0 {
				w.Dst = append(w.Dst, ',')
			}
			gw := objWriter{Dst: append(w.Dst, '{')}
			gw.Str("id", g.ID)
			gw.Str("name", g.Name)
			gw.Str("color", orDefault(g.Color))
			gw.Key("option_ids")
			gw.Dst = appendStrings(gw.Dst, g.OptionIDs)
			w.Dst = append(gw.Dst, '}')
		}
		w.Dst = append(w.Dst, ']')
	case quire.PropRelation:
		w.Str("database_id", p.RelationDatabaseID)
		if p.DualPropertyID == "" {
			w.Str("type", "single_property")
			w.Raw("single_property", "{}")
		} else {
			w.Str("type", "dual_property")
			w.Key("dual_property")
			dw := objWriter{Dst: append(w.Dst, '{')}
			dw.Str("synced_property_id", p.DualPropertyID)
			w.Dst = append(dw.Dst, '}')
		}
	case quire.PropUniqueID:
		w.Nullable("prefix", p.UniquePrefix)
	}
	return append(w.Dst, '}')
}

func appendOptions(dst []byte, opts []quire.Option) []byte {
	dst = append(dst, '[')
	for i := range opts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendOption(dst, &opts[i])
	}
	return append(dst, ']')
}

// appendOption appends an option as it reads in schemas and in select values: {id,name,color}.
func appendOption(dst []byte, o *quire.Option) []byte {
	w := objWriter{Dst: append(dst, '{')}
	w.Str("id", o.ID)
	w.Str("name", o.Name)
	w.Str("color", orDefault(o.Color))
	return append(w.Dst, '}')
}

func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = blocks.AppendString(dst, s)
	}
	return append(dst, ']')
}

func orDefault(c string) string {
	if c == "" {
		return "default"
	}
	return c
}
