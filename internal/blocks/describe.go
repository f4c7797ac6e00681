package blocks

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// TypeDescription is the read-only view of one row of the block type table, for describers
// such as the OpenAPI document: what the type's object holds, read from the same table the
// decoder and encoder use, so a new type or field shows up there by itself.
type TypeDescription struct {
	Type      string
	RichText  bool     // rich_text
	Color     bool     // text_color, background_color (and the legacy color on write)
	Children  bool     // may hold children on write (headings only when toggleable)
	Caption   bool     // caption
	Media     bool     // type: external | file_upload | file, with the field of that name
	ReadOnly  bool     // made by creating a page or database, never written as a block
	Container bool     // created with its children, all of one type (ChildType)
	ChildType string   // the only type allowed below a container, "" when any
	Fields    []string // the type's own fields beyond the flags above, in the decoder's order
	Required  []string // fields a new block of the type must send (the decoder's answer to {T:{}})
}

// Describe lists every block type, in the order of Types.
func Describe() []TypeDescription {
	out := make([]TypeDescription, 0, len(Types))
	for _, t := range Types {
		info := types[t]
		d := TypeDescription{Type: t, RichText: info.richText, Color: info.color, Children: info.children,
			Caption: info.caption, Media: info.media, ReadOnly: info.readOnly, Container: info.container,
			ChildType: childType(t)}
		for _, f := range fields(t) {
			if !slices.Contains(flagFields, f) && (!info.media || !slices.Contains(mediaFields, f)) {
				d.Fields = append(d.Fields, f)
			}
		}
		if !info.readOnly {
			d.Required = requiredFields(t)
		}
		out = append(out, d)
	}
	return out
}

// requiredFields asks the decoder itself which fields of an empty type object it misses, so the
// description cannot drift from what a write must send.
func requiredFields(t string) []string {
	_, err := DecodeValue([]any{map[string]any{"type": t, t: map[string]any{}}}, "b", nil)
	var qe *quire.Error
	if !errors.As(err, &qe) {
		return nil
	}
	var out []string
	for _, d := range qe.Details {
		f, ok := strings.CutPrefix(d.Path, "b[0]."+t+".")
		if ok && d.Reason == quire.ReasonRequired && !strings.ContainsAny(f, ".[") && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// flagFields are the fields the flags of TypeDescription stand for.
var (
	flagFields  = []string{"rich_text", "text_color", "background_color", "color", "caption"}
	mediaFields = []string{"type", "external", "file_upload", "file"}
)

// TextColors and BackgroundColors are the values of the two colour channels.
func TextColors() []string { return slices.Sorted(maps.Keys(textColors)) }

// BackgroundColors is the list of background_color values.
func BackgroundColors() []string { return slices.Sorted(maps.Keys(bgColors)) }
