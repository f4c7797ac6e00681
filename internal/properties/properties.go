// Package properties reads and writes database schemas and record property values: the
// `properties` of POST and PATCH /v2/databases, and of POST and PATCH /v2/pages for records
// (contract §6). It is pure: no I/O. The service checks what needs the store (that related
// databases exist, that people and related pages exist) with what this package returns.
//
// Three forms of each thing:
//   - request JSON, decoded with every problem collected at its exact path;
//   - the read shape of the API, written as canonical JSON (fixed key order, so equal content
//     has equal bytes and ETags stay stable);
//   - the stored form (MarshalSchema, MarshalValues) and, for values, the record_values rows
//     (Scalars) that internal/dbquery filters and sorts on.
package properties

import (
	"github.com/quire-dev/quire/internal/quire"
)

// Limits of schemas and values.
const (
	MaxNameLength       = 100  // a property or option name, in characters
	MaxProperties       = 200  // properties of one database
	MaxArray            = 100  // any array: options, multi_select, people, files, relation
	MaxTextLength       = 2000 // url values, file URLs
	MaxEmailLength      = 200
	MaxPhoneLength      = 200
	MaxFileNameLength   = 255
	MaxPrefixLength     = 20 // unique_id prefix
	maxTimeZoneLength   = 64
	defaultNumberFormat = "number"
)

// colors are the colours of select, multi_select and status options and status groups
// (Notion's list).
var colors = map[string]bool{
	"default": true, "gray": true, "brown": true, "orange": true, "yellow": true,
	"green": true, "blue": true, "purple": true, "pink": true, "red": true,
}

// numberFormats is Notion's list of number formats.
var numberFormats = map[string]bool{}

func init() {
	for _, f := range []string{"number", "number_with_commas", "percent", "dollar", "canadian_dollar",
		"euro", "pound", "yen", "ruble", "rupee", "won", "yuan", "real", "lira", "rupiah", "franc",
		"hong_kong_dollar", "new_zealand_dollar", "krona", "norwegian_krone", "mexican_peso", "rand",
		"new_taiwan_dollar", "danish_krone", "zloty", "baht", "forint", "koruna", "shekel",
		"chilean_peso", "philippine_peso", "dirham", "colombian_peso", "riyal", "ringgit", "leu",
		"argentine_peso", "uruguayan_peso", "singapore_dollar", "peruvian_sol"} {
		numberFormats[f] = true
	}
}

// kinds holds every property type this package knows, with whether a client may write its
// values (the others are computed by the server).
var kinds = map[string]bool{
	quire.PropTitle: true, quire.PropRichText: true, quire.PropNumber: true, quire.PropSelect: true,
	quire.PropMultiSelect: true, quire.PropStatus: true, quire.PropDate: true, quire.PropPeople: true,
	quire.PropFiles: true, quire.PropCheckbox: true, quire.PropURL: true, quire.PropEmail: true,
	quire.PropPhoneNumber: true, quire.PropRelation: true,
	quire.PropCreatedTime: false, quire.PropCreatedBy: false, quire.PropLastEditedTime: false,
	quire.PropLastEditedBy: false, quire.PropUniqueID: false,
}

// notYet are Notion property types that are recognised but not supported, so that a client
// sending one hears so instead of "unknown field".
var notYet = map[string]bool{"formula": true, "rollup": true, "button": true, "verification": true, "place": true}

// Known reports whether t is a property type of this package.
func Known(t string) bool { _, ok := kinds[t]; return ok }

// IsComputed reports whether values of type t are computed by the server (never written).
func IsComputed(t string) bool { w, ok := kinds[t]; return ok && !w }

// hasOptions reports whether properties of type t carry options.
func hasOptions(t string) bool {
	return t == quire.PropSelect || t == quire.PropMultiSelect || t == quire.PropStatus
}
