package views

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRead_PrunesRemovedProperties: after properties leave the schema, every reference to them
// is dropped on read, and groups left empty go too.
func TestRead_PrunesRemovedProperties(t *testing.T) {
	stored := &View{
		Type: KindTable, Name: "Tasks",
		PropertyLayout: []LayoutEntry{{Property: "title", Visible: true}, {Property: "sel", Visible: true}, {Property: "num", Visible: false}},
		Filter: group(And,
			cond("sel", OpEq, one("o1")),
			Filter{Group: group(Or, cond("num", OpGt, one("1")), Filter{Group: group(And, cond("sel", OpEmpty, nil))})},
			Filter{Group: group(Or, cond("num", OpLt, one("9")), cond("title", OpContains, one("x")))},
			cond("title", OpNotEmpty, nil)),
		Sorts:    []Sort{{"num", Descending}, {"title", Ascending}},
		GroupBy:  &GroupBy{Property: "sel"},
		Config:   Config{Wrap: true, Aggregations: map[string]string{"num": "sum", "title": "count"}},
		PageSort: []string{rec1},
	}
	before := stored.clone()
	got := Read(without(testSchema(), "sel", "num"), stored, false)
	want := &View{
		Type: KindTable, Name: "Tasks",
		PropertyLayout: []LayoutEntry{{Property: "title", Visible: true}},
		Filter: group(And,
			Filter{Group: group(Or, cond("title", OpContains, one("x")))},
			cond("title", OpNotEmpty, nil)),
		Sorts:  []Sort{{"title", Ascending}},
		Config: Config{Wrap: true, Aggregations: map[string]string{"title": "count"}},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(sameSorts)); diff != "" {
		t.Fatalf("read (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, stored); diff != "" {
		t.Fatalf("Read changed its input:\n%s", diff)
	}

	// With every filtered property gone the filter reads as null.
	if got := Read(without(testSchema(), "sel", "num", "title"), stored, false); got.Filter != nil || len(got.PropertyLayout) != 0 {
		t.Fatalf("filter %+v, layout %+v; want none", got.Filter, got.PropertyLayout)
	}
}

// TestRead_PageSortOnDetailOnly: page_sort is shown by the detail endpoint only, [] when unset.
func TestRead_PageSortOnDetailOnly(t *testing.T) {
	v := tableView()
	if got := Read(testSchema(), v, false); got.PageSort != nil {
		t.Fatalf("list read has page_sort %v", got.PageSort)
	}
	if got := Read(testSchema(), v, true); !cmp.Equal(got.PageSort, []string{rec1}) {
		t.Fatalf("detail read page_sort %v", got.PageSort)
	}
	v.PageSort = nil
	if got := Read(testSchema(), v, true); got.PageSort == nil || len(got.PageSort) != 0 {
		t.Fatalf("detail read page_sort %#v; want []", got.PageSort)
	}
}

// TestRead_PerKind: layouts, grouping and config keys a kind does not have are not shown;
// config references to removed properties read as none.
func TestRead_PerKind(t *testing.T) {
	layout := []LayoutEntry{{Property: "title", Visible: true}}
	all := Config{Wrap: true, CardSize: "large", CardPreview: "property", CoverProperty: "files", DateProperty: "due",
		StartProperty: "due", EndProperty: "end", ShowTable: true, ShowIcons: true, TitleVisible: true, SubmitText: "Go"}
	for _, tc := range []struct {
		kind   string
		remove []string
		want   *View
	}{
		{KindTimeline, nil, &View{Type: KindTimeline, Config: Config{StartProperty: "due", EndProperty: "end", ShowTable: true}}},
		{KindTimeline, []string{"due", "end"}, &View{Type: KindTimeline, Config: Config{ShowTable: true}}},
		{KindForm, nil, &View{Type: KindForm, Config: Config{TitleVisible: true, SubmitText: "Go"}}},
		{KindGallery, nil, &View{Type: KindGallery, PropertyLayout: layout, Config: Config{CardSize: "large", CardPreview: "property", CoverProperty: "files"}}},
		{KindGallery, []string{"files"}, &View{Type: KindGallery, PropertyLayout: layout, Config: Config{CardSize: "large", CardPreview: "none"}}},
		{KindCalendar, []string{"due"}, &View{Type: KindCalendar, PropertyLayout: layout}},
		{KindList, nil, &View{Type: KindList, PropertyLayout: layout, Config: Config{ShowIcons: true}}},
		{KindBoard, nil, &View{Type: KindBoard, PropertyLayout: layout, GroupBy: &GroupBy{Property: "sel"},
			Config: Config{CardSize: "large", CardPreview: "property", CoverProperty: "files"}}},
	} {
		stored := &View{Type: tc.kind, PropertyLayout: layout, GroupBy: &GroupBy{Property: "sel"}, Config: all}
		got := Read(without(testSchema(), tc.remove...), stored, false)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s without %v (-want +got):\n%s", tc.kind, tc.remove, diff)
		}
	}
}

// TestRead_FillsEmptyConfig: a hand-built view with a zero config reads with the defaults of
// its enumerations.
func TestRead_FillsEmptyConfig(t *testing.T) {
	got := Read(testSchema(), &View{Type: KindGallery}, false).Config
	if got.CardSize != "medium" || got.CardPreview != "cover" {
		t.Fatalf("gallery config %+v", got)
	}
	if got := Read(testSchema(), &View{Type: KindForm}, false).Config; got.SubmitText != "Submit" {
		t.Fatalf("form config %+v", got)
	}
}
