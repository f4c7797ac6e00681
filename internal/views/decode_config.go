package views

import (
	"strconv"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// config decodes config onto base for the decoder's kind: every key given replaces that key,
// a null key takes its default (none for property references) and a null config is
// DefaultConfig. Keys of other kinds are unknown_field. Nothing is checked when the kind is
// not known (the type's own problem is reported).
func (d *decoder) config(path string, v any, base Config) Config {
	if d.kind == "" {
		return base
	}
	def := DefaultConfig(d.kind, d.s)
	if v == nil {
		return def
	}
	m, ok := jsonbody.Object(d.p, path, v)
	if !ok {
		return base
	}
	c := base.clone()
	allowed := configKeys[d.kind]
	bad := map[string]bool{}
	for _, k := range jsonbody.SortedKeys(m) {
		at := jsonbody.Join(path, k)
		raw := m[k]
		switch {
		case !contains(allowed, k):
			d.p.Add(at, quire.ReasonUnknownField, "A "+d.kind+" view's config has no field "+strconv.Quote(k)+".")
			continue
		case raw == nil:
			c.reset(k, def)
			continue
		}
		if !d.configKey(&c, at, k, raw) {
			bad[k] = true
		}
	}
	switch d.kind {
	case KindBoard, KindGallery:
		if c.CardPreview == "property" && c.CoverProperty == "" && !bad["cover_property"] && !bad["card_preview"] {
			d.p.Add(jsonbody.Join(path, "cover_property"), quire.ReasonRequired, "card_preview \"property\" needs a cover_property.")
		}
	case KindTimeline:
		if c.EndProperty != "" && c.EndProperty == c.StartProperty && !bad["end_property"] && !bad["start_property"] {
			d.p.Add(jsonbody.Join(path, "end_property"), quire.ReasonInvalidValue, "end_property differs from start_property.")
		}
	}
	return c
}

// configKey decodes one non-null key into c, reporting whether it was valid.
func (d *decoder) configKey(c *Config, at, k string, raw any) bool {
	var ok bool
	switch k {
	case "wrap":
		c.Wrap, ok = jsonbody.Bool(d.p, at, raw)
	case "freeze_columns":
		c.FreezeColumns, ok = integer(d.p, at, raw, 0, MaxFreeze)
	case "aggregations":
		c.Aggregations, ok = d.aggregations(at, raw)
	case "card_size":
		c.CardSize, ok = jsonbody.Enum(d.p, at, raw, cardSizes)
	case "card_preview":
		c.CardPreview, ok = jsonbody.Enum(d.p, at, raw, cardPreviews)
	case "cover_property":
		c.CoverProperty, ok = d.ref(at, raw, coverTypes)
	case "fit_image":
		c.FitImage, ok = jsonbody.Bool(d.p, at, raw)
	case "date_property":
		c.DateProperty, ok = d.ref(at, raw, dateTypes)
	case "start_property":
		c.StartProperty, ok = d.ref(at, raw, dateTypes)
	case "end_property":
		c.EndProperty, ok = d.ref(at, raw, dateTypes)
	case "show_table":
		c.ShowTable, ok = jsonbody.Bool(d.p, at, raw)
	case "show_icons":
		c.ShowIcons, ok = jsonbody.Bool(d.p, at, raw)
	case "title_visible":
		c.TitleVisible, ok = jsonbody.Bool(d.p, at, raw)
	case "submit_text":
		var s string
		if s, ok = jsonbody.String(d.p, at, raw); ok {
			switch {
			case s == "":
				d.p.Add(at, quire.ReasonInvalidValue, "submit_text cannot be empty.")
				ok = false
			case tooLong(s, MaxSubmit):
				d.p.AddDetail(quire.Beyond(at, quire.ReasonTooLong, MaxSubmit, runes(s)), "submit_text has at most "+strconv.Itoa(MaxSubmit)+" characters.")
				ok = false
			default:
				c.SubmitText = s
			}
		}
	case "allow_multiple_submissions":
		c.AllowMultipleSubmissions, ok = jsonbody.Bool(d.p, at, raw)
	}
	return ok
}

// reset gives key k its value in def; property references become none.
func (c *Config) reset(k string, def Config) {
	switch k {
	case "wrap":
		c.Wrap = def.Wrap
	case "freeze_columns":
		c.FreezeColumns = def.FreezeColumns
	case "aggregations":
		c.Aggregations = map[string]string{}
	case "card_size":
		c.CardSize = def.CardSize
	case "card_preview":
		c.CardPreview = def.CardPreview
	case "cover_property":
		c.CoverProperty = ""
	case "fit_image":
		c.FitImage = def.FitImage
	case "date_property":
		c.DateProperty = ""
	case "start_property":
		c.StartProperty = ""
	case "end_property":
		c.EndProperty = ""
	case "show_table":
		c.ShowTable = def.ShowTable
	case "show_icons":
		c.ShowIcons = def.ShowIcons
	case "title_visible":
		c.TitleVisible = def.TitleVisible
	case "submit_text":
		c.SubmitText = def.SubmitText
	case "allow_multiple_submissions":
		c.AllowMultipleSubmissions = def.AllowMultipleSubmissions
	}
}

// ref decodes a property id whose property has one of types.
func (d *decoder) ref(at string, raw any, types []string) (string, bool) {
	id, ok := jsonbody.String(d.p, at, raw)
	if !ok {
		return "", false
	}
	p := d.property(at, id)
	if p == nil {
		return "", false
	}
	if !contains(types, p.Type) {
		d.p.Add(at, quire.ReasonInvalidValue, "Property "+strconv.Quote(id)+" is a "+p.Type+" property.")
		return "", false
	}
	return id, true
}

// aggregations decodes {property_id: function}; the whole map replaces the previous one and
// a null function leaves that property out.
func (d *decoder) aggregations(at string, raw any) (map[string]string, bool) {
	m, ok := jsonbody.Object(d.p, at, raw)
	if !ok {
		return nil, false
	}
	if len(m) > MaxArray {
		d.p.AddDetail(quire.Beyond(at, quire.ReasonTooMany, MaxArray, int64(len(m))), "At most "+strconv.Itoa(MaxArray)+" aggregations.")
		return nil, false
	}
	out := make(map[string]string, len(m))
	ok = true
	for _, id := range jsonbody.SortedKeys(m) {
		ip := jsonbody.Join(at, id)
		if m[id] == nil {
			continue
		}
		p := d.property(ip, id)
		fn, fnOK := jsonbody.Enum(d.p, ip, m[id], aggregations)
		switch {
		case p == nil || !fnOK:
			ok = false
		case !aggregationFits(fn, p.Type):
			d.p.Add(ip, quire.ReasonInvalidValue, "Aggregation "+fn+" does not apply to a "+p.Type+" property.")
			ok = false
		default:
			out[id] = fn
		}
	}
	return out, ok
}
