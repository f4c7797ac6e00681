// Package views holds the rules of database views: the kinds, the web-client filter format,
// sorts, the column layout, grouping and the curated per-kind config. It decodes create and
// patch bodies (collecting every problem with its exact path), prunes references to deleted
// properties on read and writes the read shape. It does no I/O; a query through a view converts
// the view's filter and sorts to the database query's with dbquery.FromView.
package views

// View kinds exposed through V2.
const (
	KindTable    = "table"
	KindBoard    = "board"
	KindGallery  = "gallery"
	KindList     = "list"
	KindCalendar = "calendar"
	KindTimeline = "timeline"
	KindForm     = "form"
)

// Kinds lists the view kinds of V2 in a stable order.
var Kinds = []string{KindTable, KindBoard, KindGallery, KindList, KindCalendar, KindTimeline, KindForm}

// IsKind reports whether kind is a view kind exposed through V2. Stored views of any other
// (internal) kind are not shown by the API.
func IsKind(kind string) bool {
	for _, k := range Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// Limits of one view.
const (
	MaxName     = 200   // characters of a view's name
	MaxArray    = 100   // items of property_layout, sorts, a filter group, a value list, aggregations
	MaxDepth    = 3     // filter groups nest this deep, the top-level group included
	MaxConds    = 100   // conditions in one whole filter
	MaxValueLen = 2000  // characters of one filter value
	MaxPageSort = 10000 // record ids in page_sort
	MinWidth    = 32    // pixels of a layout column
	MaxWidth    = 2000
	MaxFreeze   = 100 // config.freeze_columns
	MaxSubmit   = 100 // characters of config.submit_text
)

// View is a database view as stored: its JSON (encoding/json) is the stored form. Ids, times
// and the trash flag belong to the caller.
type View struct {
	Type           string        `json:"type"`
	Name           string        `json:"name"`
	PropertyLayout []LayoutEntry `json:"property_layout,omitempty"`
	Filter         *Group        `json:"filter,omitempty"`
	Sorts          []Sort        `json:"sorts,omitempty"`
	GroupBy        *GroupBy      `json:"group_by,omitempty"`
	Config         Config        `json:"config"`
	// PageSort is the manual record order: record ids, first first.
	PageSort []string `json:"page_sort,omitempty"`
}

// LayoutEntry is one column of property_layout.
type LayoutEntry struct {
	Property string `json:"property"`
	Visible  bool   `json:"visible"`
	Width    *int   `json:"width,omitempty"`
}

// Sort is one entry of sorts.
type Sort struct {
	Property  string `json:"property"`
	Direction string `json:"direction"` // "ascending" or "descending"
}

// Sort directions.
const (
	Ascending  = "ascending"
	Descending = "descending"
)

// GroupBy names the property a table or board is grouped by.
type GroupBy struct {
	Property string `json:"property"`
}

// groupable lists the property types a view may be grouped by: those with a small set of
// discrete values (dates group by day, week or month in the client).
var groupable = map[string]bool{
	"select": true, "multi_select": true, "status": true, "checkbox": true, "people": true,
	"relation": true, "date": true, "created_time": true, "last_edited_time": true,
	"created_by": true, "last_edited_by": true,
}

// canGroup reports whether a view of kind may have a group_by.
func canGroup(kind string) bool { return kind == KindTable || kind == KindBoard }

// hasLayout reports whether a view of kind keeps a property_layout.
func hasLayout(kind string) bool { return kind != KindTimeline && kind != KindForm }

// clone returns a deep copy of v.
func (v *View) clone() *View {
	out := *v
	out.PropertyLayout = append([]LayoutEntry(nil), v.PropertyLayout...)
	for i, e := range out.PropertyLayout {
		if e.Width != nil {
			w := *e.Width
			out.PropertyLayout[i].Width = &w
		}
	}
	out.Filter = v.Filter.clone()
	out.Sorts = append([]Sort(nil), v.Sorts...)
	if v.GroupBy != nil {
		g := *v.GroupBy
		out.GroupBy = &g
	}
	out.Config = v.Config.clone()
	out.PageSort = append([]string(nil), v.PageSort...)
	return &out
}
