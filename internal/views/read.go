package views

import "github.com/quire-dev/quire/internal/quire"

// Read returns the view as the API shows it, leaving v unchanged: layout entries, conditions,
// sorts, group_by and config references naming properties no longer in the schema are
// pruned (a filter group left empty goes too, and a filter left without conditions is null);
// the layout is empty for timeline and form views; group_by is kept only for table and board
// views; config holds only the kind's keys, every one set. page_sort is kept only for the
// view detail endpoint (detail true).
func Read(s quire.Schema, v *View, detail bool) *View {
	out := v.clone()
	has := func(id string) bool { return s.ByID(id) != nil }

	layout := out.PropertyLayout[:0]
	if hasLayout(out.Type) {
		for _, e := range out.PropertyLayout {
			if has(e.Property) {
				layout = append(layout, e)
			}
		}
	}
	out.PropertyLayout = nil
	if len(layout) > 0 {
		out.PropertyLayout = layout
	}

	out.Filter = prune(out.Filter, has)

	sorts := out.Sorts[:0]
	for _, st := range out.Sorts {
		if has(st.Property) {
			sorts = append(sorts, st)
		}
	}
	out.Sorts = nil
	if len(sorts) > 0 {
		out.Sorts = sorts
	}

	if g := out.GroupBy; g != nil && (!has(g.Property) || !canGroup(out.Type)) {
		out.GroupBy = nil
	}

	out.Config = readConfig(out.Type, out.Config, has)

	if !detail {
		out.PageSort = nil
	} else if out.PageSort == nil {
		out.PageSort = []string{}
	}
	return out
}

// prune drops the conditions of g on missing properties and the groups left empty; it
// returns nil when nothing is left.
func prune(g *Group, has func(string) bool) *Group {
	if g == nil {
		return nil
	}
	kept := g.Filters[:0]
	for _, f := range g.Filters {
		switch {
		case f.Condition != nil && has(f.Condition.Property):
			kept = append(kept, f)
		case f.Group != nil:
			if sub := prune(f.Group, has); sub != nil {
				kept = append(kept, Filter{Group: sub})
			}
		}
	}
	if len(kept) == 0 {
		return nil
	}
	g.Filters = kept
	return g
}

// readConfig keeps the kind's keys of c, drops references to missing properties and fills
// what an older or hand-built view left empty. A card preview whose cover property is gone
// shows none.
func readConfig(kind string, c Config, has func(string) bool) Config {
	c = c.only(kind)
	def := DefaultConfig(kind, nil)
	switch kind {
	case KindTable:
		aggs := make(map[string]string, len(c.Aggregations))
		for id, fn := range c.Aggregations {
			if has(id) {
				aggs[id] = fn
			}
		}
		c.Aggregations = aggs
	case KindBoard, KindGallery:
		if c.CardSize == "" {
			c.CardSize = def.CardSize
		}
		if c.CardPreview == "" {
			c.CardPreview = def.CardPreview
		}
		if c.CoverProperty != "" && !has(c.CoverProperty) {
			c.CoverProperty = ""
		}
		if c.CardPreview == "property" && c.CoverProperty == "" {
			c.CardPreview = "none"
		}
	case KindCalendar:
		if !has(c.DateProperty) {
			c.DateProperty = ""
		}
	case KindTimeline:
		if !has(c.StartProperty) {
			c.StartProperty = ""
		}
		if !has(c.EndProperty) {
			c.EndProperty = ""
		}
	case KindForm:
		if c.SubmitText == "" {
			c.SubmitText = def.SubmitText
		}
	}
	return c
}
