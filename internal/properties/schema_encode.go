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
	w := objWriter{dst: append(dst, '{')}
	for _, p := range s {
		w.key(p.Name)
		w.dst = AppendProperty(w.dst, p)
	}
	return append(w.dst, '}')
}

// AppendProperty appends one schema entry, `{"id","name","type",T:{config}}`.
func AppendProperty(dst []byte, p *quire.Property) []byte {
	w := objWriter{dst: append(dst, '{')}
	w.str("id", p.ID)
	w.str("name", p.Name)
	w.str("type", p.Type)
	w.key(p.Type)
	w.dst = appendConfig(w.dst, p)
	return append(w.dst, '}')
}

func appendConfig(dst []byte, p *quire.Property) []byte {
	w := objWriter{dst: append(dst, '{')}
	switch p.Type {
	case quire.PropNumber:
		f := p.NumberFormat
		if f == "" {
			f = defaultNumberFormat
		}
		w.str("format", f)
	case quire.PropSelect, quire.PropMultiSelect:
		w.key("options")
		w.dst = appendOptions(w.dst, p.Options)
	case quire.PropStatus:
		w.key("options")
		w.dst = appendOptions(w.dst, p.Options)
		w.key("groups")
		w.dst = append(w.dst, '[')
		for i, g := range p.Groups {
			if i > 0 {
				w.dst = append(w.dst, ',')
			}
			gw := objWriter{dst: append(w.dst, '{')}
			gw.str("id", g.ID)
			gw.str("name", g.Name)
			gw.str("color", orDefault(g.Color))
			gw.key("option_ids")
			gw.dst = appendStrings(gw.dst, g.OptionIDs)
			w.dst = append(gw.dst, '}')
		}
		w.dst = append(w.dst, ']')
	case quire.PropRelation:
		w.str("database_id", p.RelationDatabaseID)
		if p.DualPropertyID == "" {
			w.str("type", "single_property")
			w.raw("single_property", "{}")
		} else {
			w.str("type", "dual_property")
			w.key("dual_property")
			dw := objWriter{dst: append(w.dst, '{')}
			dw.str("synced_property_id", p.DualPropertyID)
			w.dst = append(dw.dst, '}')
		}
	case quire.PropUniqueID:
		w.nullable("prefix", p.UniquePrefix)
	}
	return append(w.dst, '}')
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
	w := objWriter{dst: append(dst, '{')}
	w.str("id", o.ID)
	w.str("name", o.Name)
	w.str("color", orDefault(o.Color))
	return append(w.dst, '}')
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
