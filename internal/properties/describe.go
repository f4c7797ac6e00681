package properties

import (
	"cmp"
	"maps"
	"slices"

	"github.com/quire-dev/quire/internal/quire"
)

// TypeDescription is the read-only view of one property type, for describers such as the OpenAPI
// document. Value and Config name the shape of the type's value and of its schema configuration;
// types that share a shape share its decoder and encoder, so a new type with an existing shape
// is described by adding its row here, and a new shape stops the document's build until the
// describer knows it.
type TypeDescription struct {
	Type     string
	Computed bool   // values are computed by the server, never written
	Value    string // see valueShapes
	Config   string // see configShapes
}

// Shapes of values: rich_text (a rich-text array), number, checkbox, text (a string), option
// ({id, name, color}), options (an array of them), date ({start, end, time_zone}), people and
// relation (arrays of {id}), files, timestamp (a date-time), user, unique_id ({prefix, number}).
var valueShapes = map[string]string{
	quire.PropTitle: "rich_text", quire.PropRichText: "rich_text", quire.PropNumber: "number",
	quire.PropCheckbox: "checkbox", quire.PropURL: "text", quire.PropEmail: "text", quire.PropPhoneNumber: "text",
	quire.PropSelect: "option", quire.PropStatus: "option", quire.PropMultiSelect: "options",
	quire.PropDate: "date", quire.PropPeople: "people", quire.PropRelation: "relation", quire.PropFiles: "files",
	quire.PropCreatedTime: "timestamp", quire.PropLastEditedTime: "timestamp",
	quire.PropCreatedBy: "user", quire.PropLastEditedBy: "user", quire.PropUniqueID: "unique_id",
}

// Shapes of configurations (configure reads them): empty ({}), number ({format}), options
// ({options}), status ({options, groups}), relation, unique_id ({prefix}).
var configShapes = map[string]string{
	quire.PropNumber: "number", quire.PropSelect: "options", quire.PropMultiSelect: "options",
	quire.PropStatus: "status", quire.PropRelation: "relation", quire.PropUniqueID: "unique_id",
}

// Describe lists every property type, sorted by name.
func Describe() []TypeDescription {
	out := make([]TypeDescription, 0, len(kinds))
	for t, writable := range kinds {
		cfg := configShapes[t]
		if cfg == "" {
			cfg = "empty"
		}
		out = append(out, TypeDescription{Type: t, Computed: !writable, Value: valueShapes[t], Config: cfg})
	}
	slices.SortFunc(out, func(a, b TypeDescription) int { return cmp.Compare(a.Type, b.Type) })
	return out
}

// NumberFormats lists the formats of a number property, sorted.
func NumberFormats() []string { return slices.Sorted(maps.Keys(numberFormats)) }

// OptionColors lists the colours of options and status groups, sorted.
func OptionColors() []string { return slices.Sorted(maps.Keys(colors)) }
