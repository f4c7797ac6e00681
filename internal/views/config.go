package views

import "github.com/quire-dev/quire/internal/quire"

// Config is the curated per-kind settings of a view. Only the fields of the view's kind are
// used and shown; decoding fills every one of them, so a zero field is a real value. Property
// references are ids, "" for none.
type Config struct {
	// table
	Wrap          bool              `json:"wrap,omitempty"`
	FreezeColumns int               `json:"freeze_columns,omitempty"`
	Aggregations  map[string]string `json:"aggregations,omitempty"` // property id → function
	// board and gallery
	CardSize      string `json:"card_size,omitempty"`      // small, medium, large
	CardPreview   string `json:"card_preview,omitempty"`   // none, cover, content, property
	CoverProperty string `json:"cover_property,omitempty"` // a files property, shown when card_preview is property
	FitImage      bool   `json:"fit_image,omitempty"`
	// calendar
	DateProperty string `json:"date_property,omitempty"`
	// timeline
	StartProperty string `json:"start_property,omitempty"`
	EndProperty   string `json:"end_property,omitempty"`
	ShowTable     bool   `json:"show_table,omitempty"`
	// list
	ShowIcons bool `json:"show_icons,omitempty"`
	// form
	TitleVisible             bool   `json:"title_visible,omitempty"`
	SubmitText               string `json:"submit_text,omitempty"`
	AllowMultipleSubmissions bool   `json:"allow_multiple_submissions,omitempty"`
}

// Config keys per kind, in the order the read shape writes them.
var configKeys = map[string][]string{
	KindTable:    {"wrap", "freeze_columns", "aggregations"},
	KindBoard:    {"card_size", "card_preview", "cover_property", "fit_image"},
	KindGallery:  {"card_size", "card_preview", "cover_property", "fit_image"},
	KindCalendar: {"date_property"},
	KindTimeline: {"start_property", "end_property", "show_table"},
	KindList:     {"show_icons"},
	KindForm:     {"title_visible", "submit_text", "allow_multiple_submissions"},
}

// Values of the enumerated config keys.
var (
	cardSizes    = []string{"small", "medium", "large"}
	cardPreviews = []string{"none", "cover", "content", "property"}
	aggregations = []string{"count", "count_values", "unique", "empty", "not_empty", "sum", "average", "min", "max"}
)

// Property types a config key may reference.
var (
	dateTypes  = []string{quire.PropDate, quire.PropCreatedTime, quire.PropLastEditedTime}
	coverTypes = []string{quire.PropFiles}
)

// DefaultConfig is the config a new view of kind gets for what the request leaves out. A
// calendar's date_property and a timeline's start_property default to the schema's first date
// property (none when it has none).
func DefaultConfig(kind string, s quire.Schema) Config {
	c := Config{
		Aggregations: map[string]string{},
		CardSize:     "medium",
		CardPreview:  "none",
		ShowTable:    true,
		ShowIcons:    true,
		TitleVisible: true,
		SubmitText:   "Submit",
		// Forms collect answers: one person may answer more than once unless turned off.
		AllowMultipleSubmissions: true,
	}
	if kind == KindGallery {
		c.CardPreview = "cover"
	}
	for _, p := range s {
		if p.Type == quire.PropDate {
			c.DateProperty, c.StartProperty = p.ID, p.ID
			break
		}
	}
	return c
}

// only keeps the fields of kind, zeroing the others, so that the stored form holds nothing a
// kind does not use.
func (c Config) only(kind string) Config {
	var out Config
	switch kind {
	case KindTable:
		out.Wrap, out.FreezeColumns, out.Aggregations = c.Wrap, c.FreezeColumns, c.Aggregations
	case KindBoard, KindGallery:
		out.CardSize, out.CardPreview, out.CoverProperty, out.FitImage = c.CardSize, c.CardPreview, c.CoverProperty, c.FitImage
	case KindCalendar:
		out.DateProperty = c.DateProperty
	case KindTimeline:
		out.StartProperty, out.EndProperty, out.ShowTable = c.StartProperty, c.EndProperty, c.ShowTable
	case KindList:
		out.ShowIcons = c.ShowIcons
	case KindForm:
		out.TitleVisible, out.SubmitText, out.AllowMultipleSubmissions = c.TitleVisible, c.SubmitText, c.AllowMultipleSubmissions
	}
	return out
}

func (c Config) clone() Config {
	if c.Aggregations != nil {
		m := make(map[string]string, len(c.Aggregations))
		for k, v := range c.Aggregations {
			m[k] = v
		}
		c.Aggregations = m
	}
	return c
}

// aggregationFits reports whether function fn applies to a property of type typ.
func aggregationFits(fn, typ string) bool {
	switch fn {
	case "sum", "average":
		return typ == quire.PropNumber
	case "min", "max":
		return typ == quire.PropNumber || typ == quire.PropUniqueID || contains(dateTypes, typ)
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
