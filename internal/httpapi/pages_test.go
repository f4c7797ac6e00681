package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// Helpers shared by the content tests (pages, blocks, Markdown, listings).

// wsParent is the workspace as a parent.
var wsParent = map[string]any{"type": "workspace", "workspace": true}

func pageParent(id string) map[string]any { return map[string]any{"type": "page_id", "page_id": id} }

// txt is a rich-text item as a client writes it.
func txt(s string) map[string]any {
	return map[string]any{"type": "text", "text": map[string]any{"content": s}}
}

// titleOf is the properties of a page titled s.
func titleOf(s string) map[string]any { return map[string]any{"title": []any{txt(s)}} }

// blk is a block as a client writes it: {"type":typ, typ:content}.
func blk(typ string, content map[string]any) map[string]any {
	return map[string]any{"type": typ, typ: content}
}

// para is a paragraph block of one text item, with optional children.
func para(s string, children ...any) map[string]any {
	c := map[string]any{"rich_text": []any{txt(s)}}
	if len(children) > 0 {
		c["children"] = children
	}
	return blk("paragraph", c)
}

// toggle is a toggle block with children.
func toggle(s string, children ...any) map[string]any {
	c := map[string]any{"rich_text": []any{txt(s)}}
	if len(children) > 0 {
		c["children"] = children
	}
	return blk("toggle", c)
}

// jsonValue decodes a JSON literal of an expected answer; format args are substituted first.
func jsonValue(t testing.TB, format string, args ...any) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(fmt.Sprintf(format, args...)), &v); err != nil {
		t.Fatalf("bad expected JSON: %v\n%s", err, fmt.Sprintf(format, args...))
	}
	return v
}

// annOut are the annotations of unstyled rich text as read back.
func annOut() map[string]any {
	return map[string]any{"bold": false, "italic": false, "strikethrough": false, "underline": false, "code": false,
		"text_color": "default", "background_color": "default"}
}

// txtOut is an unstyled rich-text item as read back.
func txtOut(s string) map[string]any {
	return map[string]any{"type": "text", "text": map[string]any{"content": s, "link": nil},
		"annotations": annOut(), "plain_text": s, "href": nil}
}

var timestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// wantOK fails unless r has status.
func wantOK(t testing.TB, r *response, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.raw)
	}
}

// wantDetail checks the error body and that one detail is exactly {path, reason}.
func wantDetail(t testing.TB, r *response, status int, code, path, reason string) {
	t.Helper()
	r.wantError(t, status, code, path)
	for _, d := range r.body["details"].([]any) {
		d := d.(map[string]any)
		if d["path"] == path && d["reason"] == reason {
			return
		}
	}
	t.Fatalf("no detail {%s %s}: %s", path, reason, r.raw)
}

// volatile checks the fields a test cannot predict (a UUID id, timestamps in the API's format)
// and returns a copy of o without them, ready to compare.
func volatile(t testing.TB, o map[string]any) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, v := range o {
		switch k {
		case "id":
			if s, _ := v.(string); !quire.ValidID(s) {
				t.Errorf("id %v is not a UUID", v)
			}
		case "created_time", "last_edited_time":
			if s, _ := v.(string); !timestampRE.MatchString(s) {
				t.Errorf("%s %v is not an ISO 8601 timestamp with milliseconds and Z", k, v)
			}
		default:
			out[k] = v
		}
	}
	return out
}

// pageWant is the page object a test expects, without id and times.
func (e *env) pageWant(id, pageType string, parent map[string]any, title []any, inTrash bool, icon, cover any) map[string]any {
	return map[string]any{
		"object": "page", "page_type": pageType,
		"created_by": map[string]any{"object": "user", "id": e.owner.ID}, "last_edited_by": map[string]any{"object": "user", "id": e.owner.ID},
		"parent": parent, "in_trash": inTrash, "icon": icon, "cover": cover,
		"properties": map[string]any{"title": map[string]any{"id": "title", "type": "title", "title": title}},
		"url":        e.srv.URL + "/v2/pages/" + id,
	}
}

// mkPage creates a page through the API and returns its id; extra fields join the body.
func (e *env) mkPage(t testing.TB, token string, parent any, title string, extra ...map[string]any) string {
	t.Helper()
	body := map[string]any{"parent": parent, "properties": titleOf(title)}
	for _, x := range extra {
		for k, v := range x {
			body[k] = v
		}
	}
	r := e.do(http.MethodPost, "/v2/pages", token, body)
	wantOK(t, r, 200)
	return r.body["id"].(string)
}

// appendKids appends children to a block or page and returns the created top-level blocks.
func (e *env) appendKids(t testing.TB, id string, children ...any) []map[string]any {
	t.Helper()
	r := e.do(http.MethodPatch, "/v2/blocks/"+id+"/children", e.full, map[string]any{"children": children})
	wantOK(t, r, 200)
	return objects(r.body["results"])
}

func objects(v any) []map[string]any {
	a, _ := v.([]any)
	out := make([]map[string]any, len(a))
	for i, o := range a {
		out[i] = o.(map[string]any)
	}
	return out
}

// idsOf are the ids of objects, nil for none.
func idsOf(os []map[string]any) []string {
	var out []string
	for _, o := range os {
		out = append(out, o["id"].(string))
	}
	return out
}

// walk reads every page of a paginated GET with page_size n and returns the results in order.
func (e *env) walk(t testing.TB, path, token string, n int) []map[string]any {
	t.Helper()
	var out []map[string]any
	cursor := ""
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatalf("%s: the walk does not end", path)
		}
		sep := "?"
		if regexp.MustCompile(`\?`).MatchString(path) {
			sep = "&"
		}
		p := fmt.Sprintf("%s%spage_size=%d", path, sep, n)
		if cursor != "" {
			p += "&start_cursor=" + cursor
		}
		r := e.do(http.MethodGet, p, token, nil)
		wantOK(t, r, 200)
		if r.body["object"] == "workspace_pages" { // its team section, continued by start_cursor
			if r.body["shared"].(map[string]any)["has_more"] != false || r.body["private"].(map[string]any)["has_more"] != false {
				t.Fatalf("%s: shared or private has more: %s", p, r.raw)
			}
			r.body = r.body["team"].(map[string]any)
		}
		if r.body["object"] != "list" {
			t.Fatalf("%s: not a list: %s", p, r.raw)
		}
		out = append(out, objects(r.body["results"])...)
		next, _ := r.body["next_cursor"].(string)
		if (next != "") != (r.body["has_more"] == true) {
			t.Fatalf("%s: has_more and next_cursor disagree: %s", p, r.raw)
		}
		if next == "" {
			return out
		}
		cursor = next
	}
}

// kids are the children of a block or page, all of them, in order.
func (e *env) kids(t testing.TB, id string) []map[string]any {
	t.Helper()
	return e.walk(t, "/v2/blocks/"+id+"/children", e.full, 100)
}

func (e *env) kidIDs(t testing.TB, id string) []string { t.Helper(); return idsOf(e.kids(t, id)) }

// getPage reads a page with the full token.
func (e *env) getPage(t testing.TB, id string) *response {
	t.Helper()
	r := e.do(http.MethodGet, "/v2/pages/"+id, e.full, nil)
	wantOK(t, r, 200)
	return r
}

func TestCreatePage_TopLevel(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		r := e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": wsParent, "properties": titleOf("Top")})
		wantOK(t, r, 200)
		id := r.body["id"].(string)
		if r.header.Get("ETag") != `W/"1"` {
			t.Errorf("ETag = %q, want W/\"1\"", r.header.Get("ETag"))
		}
		if r.body["created_time"] != r.body["last_edited_time"] {
			t.Errorf("a new page's times differ: %s", r.raw)
		}
		want := e.pageWant(id, "page", map[string]any{"type": "workspace", "workspace": true}, []any{txtOut("Top")}, false, nil, nil)
		if diff := cmp.Diff(want, volatile(t, r.body)); diff != "" {
			t.Fatalf("created page (-want +got):\n%s", diff)
		}
		// GET answers the same object and version.
		g := e.getPage(t, id)
		if diff := cmp.Diff(r.body, g.body); diff != "" {
			t.Fatalf("GET differs from POST (-post +get):\n%s", diff)
		}
		if g.header.Get("ETag") != `W/"1"` {
			t.Errorf("GET ETag = %q", g.header.Get("ETag"))
		}
		// Only a workspace-scoped token creates top-level content; a granted one reaches the
		// page but may not add a sibling of it.
		granted := e.token(quire.AllScopes, false, id)
		for _, parent := range []any{wsParent, map[string]any{"workspace": true}} {
			e.do(http.MethodPost, "/v2/pages", granted, map[string]any{"parent": parent, "properties": titleOf("Nope")}).
				wantError(t, 403, quire.CodeForbidden, "")
		}
		// It may create under its page.
		kid := e.mkPage(t, granted, pageParent(id), "Mine")
		if r := e.do(http.MethodGet, "/v2/pages/"+kid, granted, nil); r.status != 200 {
			t.Fatalf("granted token cannot read the page it made: %d %s", r.status, r.raw)
		}
		// A token without pages.write is refused before anything else.
		e.do(http.MethodPost, "/v2/pages", e.token([]quire.Scope{quire.PagesRead}, true), map[string]any{"parent": wsParent}).
			wantError(t, 403, quire.CodeForbidden, "")
		if n := len(e.walk(t, "/v2/workspace/pages", e.full, 100)); n != 1 {
			t.Fatalf("top-level pages = %d, want 1", n)
		}
		// A page without a parent is a top-level page too (contract §2).
		r = e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"properties": titleOf("No parent")})
		wantOK(t, r, 200)
		if diff := cmp.Diff(map[string]any{"type": "workspace", "workspace": true}, r.body["parent"]); diff != "" {
			t.Fatalf("parent of a page created without one (-want +got):\n%s", diff)
		}
		if n := len(e.walk(t, "/v2/workspace/pages", e.full, 100)); n != 2 {
			t.Fatalf("top-level pages = %d, want 2", n)
		}
	})
}

func TestCreatePage_UnderPage(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		parent := e.mkPage(t, e.full, wsParent, "Parent", map[string]any{"children": []any{para("intro")}})
		r := e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": pageParent(parent), "properties": titleOf("Child")})
		wantOK(t, r, 200)
		child := r.body["id"].(string)
		want := e.pageWant(child, "page", pageParent(parent), []any{txtOut("Child")}, false, nil, nil)
		if diff := cmp.Diff(want, volatile(t, r.body)); diff != "" {
			t.Fatalf("child page (-want +got):\n%s", diff)
		}
		// The child appears as a child_page block after the parent's content, titled.
		kids := e.kids(t, parent)
		if len(kids) != 2 {
			t.Fatalf("parent has %d children, want 2: %v", len(kids), kids)
		}
		wantBlock := map[string]any{
			"object": "block", "parent": pageParent(parent),
			"created_by": map[string]any{"object": "user", "id": e.owner.ID}, "last_edited_by": map[string]any{"object": "user", "id": e.owner.ID},
			"has_children": false, "in_trash": false, "type": "child_page", "child_page": map[string]any{"title": "Child"},
		}
		if kids[1]["id"] != child {
			t.Fatalf("child_page block id = %v, want the page's id %s", kids[1]["id"], child)
		}
		if diff := cmp.Diff(wantBlock, volatile(t, kids[1])); diff != "" {
			t.Fatalf("child_page block (-want +got):\n%s", diff)
		}
		// The block reads alone too.
		b := e.do(http.MethodGet, "/v2/blocks/"+child, e.full, nil)
		wantOK(t, b, 200)
		if diff := cmp.Diff(wantBlock, volatile(t, b.body)); diff != "" {
			t.Fatalf("GET child_page block (-want +got):\n%s", diff)
		}
		// A rename shows in the block.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+child, e.full, map[string]any{"properties": titleOf("Renamed")}), 200)
		b = e.do(http.MethodGet, "/v2/blocks/"+child, e.full, nil)
		if diff := cmp.Diff(map[string]any{"title": "Renamed"}, b.body["child_page"]); diff != "" {
			t.Fatalf("child_page after rename (-want +got):\n%s", diff)
		}
		// Its content makes the block have children; the child page's children are its content.
		e.appendKids(t, child, para("inside"))
		b = e.do(http.MethodGet, "/v2/blocks/"+child, e.full, nil)
		if b.body["has_children"] != true {
			t.Fatalf("child_page of a page with content: has_children = %v", b.body["has_children"])
		}
		if got := e.kids(t, child); len(got) != 1 || got[0]["type"] != "paragraph" {
			t.Fatalf("child page content: %v", got)
		}
	})
}

func TestCreatePage_Types(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		top := e.mkPage(t, e.full, wsParent, "Top")
		for _, pt := range []string{"page", "folder", "mind_map"} {
			t.Run(pt, func(t *testing.T) {
				r := e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": pageParent(top), "page_type": pt, "properties": titleOf(pt)})
				wantOK(t, r, 200)
				id := r.body["id"].(string)
				want := e.pageWant(id, pt, pageParent(top), []any{txtOut(pt)}, false, nil, nil)
				if diff := cmp.Diff(want, volatile(t, r.body)); diff != "" {
					t.Fatalf("(-want +got):\n%s", diff)
				}
				if g := e.getPage(t, id); g.body["page_type"] != pt {
					t.Fatalf("GET page_type = %v", g.body["page_type"])
				}
			})
		}
		before := len(e.walk(t, "/v2/workspace/pages/recent", e.full, 100))
		for _, tc := range []struct {
			name         string
			body         map[string]any
			path, reason string
		}{
			{"folder with children", map[string]any{"parent": pageParent(top), "page_type": "folder", "children": []any{para("x")}},
				"children", quire.ReasonInvalidValue},
			{"folder with markdown", map[string]any{"parent": pageParent(top), "page_type": "folder", "markdown": "x"},
				"markdown", quire.ReasonInvalidValue},
			{"unknown page type", map[string]any{"parent": pageParent(top), "page_type": "board"}, "page_type", quire.ReasonInvalidValue},
			{"page type not a string", map[string]any{"parent": pageParent(top), "page_type": 3}, "page_type", quire.ReasonInvalidType},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantDetail(t, e.do(http.MethodPost, "/v2/pages", e.full, tc.body), 400, quire.CodeValidation, tc.path, tc.reason)
			})
		}
		if after := len(e.walk(t, "/v2/workspace/pages/recent", e.full, 100)); after != before {
			t.Fatalf("rejected creates wrote pages: %d before, %d after", before, after)
		}
		// A mind map holds nodes, not pages; a folder holds pages.
		mindMap := e.walk(t, "/v2/workspace/pages/mind_maps", e.full, 100)[0]["id"].(string)
		folder := e.walk(t, "/v2/workspace/pages/folders", e.full, 100)[0]["id"].(string)
		wantDetail(t, e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": pageParent(mindMap)}),
			400, quire.CodeValidation, "parent.page_id", quire.ReasonInvalidValue)
		other := e.mkPage(t, e.full, wsParent, "Other")
		wantDetail(t, e.do(http.MethodPatch, "/v2/pages/"+other+"/move", e.full, map[string]any{"parent": pageParent(mindMap)}),
			400, quire.CodeValidation, "parent.page_id", quire.ReasonInvalidValue)
		inFolder := e.mkPage(t, e.full, pageParent(folder), "In folder")
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+inFolder+"/move", e.full, map[string]any{"parent": pageParent(top)}), 200)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+inFolder+"/move", e.full, map[string]any{"parent": pageParent(folder)}), 200)
		// A folder lists under folders, a mind map under mind_maps.
		for section, pt := range map[string]string{"folders": "folder", "mind_maps": "mind_map"} {
			got := e.walk(t, "/v2/workspace/pages/"+section, e.full, 100)
			if len(got) != 1 || got[0]["page_type"] != pt {
				t.Fatalf("%s = %v", section, got)
			}
		}
	})
}

func TestCreatePage_WithContent(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		// children nested two levels deep, in order.
		tree := []any{
			para("one"),
			toggle("two", para("two.a", para("two.a.i"), para("two.a.ii")), para("two.b")),
			para("three"),
		}
		id := e.mkPage(t, e.full, wsParent, "Tree", map[string]any{"children": tree})
		type node struct {
			Text string
			Kids []node
		}
		var read func(id string) []node
		read = func(id string) []node {
			var out []node
			for _, b := range e.kids(t, id) {
				typ := b["type"].(string)
				rt := b[typ].(map[string]any)["rich_text"].([]any)
				n := node{Text: rt[0].(map[string]any)["plain_text"].(string)}
				if b["has_children"] == true {
					n.Kids = read(b["id"].(string))
				}
				out = append(out, n)
			}
			return out
		}
		want := []node{{Text: "one"}, {Text: "two", Kids: []node{
			{Text: "two.a", Kids: []node{{Text: "two.a.i"}, {Text: "two.a.ii"}}}, {Text: "two.b"}}}, {Text: "three"}}
		if diff := cmp.Diff(want, read(id)); diff != "" {
			t.Fatalf("tree (-want +got):\n%s", diff)
		}
		// markdown instead of children.
		md := e.mkPage(t, e.full, wsParent, "MD", map[string]any{"markdown": "# Title\n\nHello *world*\n\n- a\n- b\n"})
		kids := e.kids(t, md)
		var types []string
		for _, k := range kids {
			types = append(types, k["type"].(string))
		}
		if diff := cmp.Diff([]string{"heading_1", "paragraph", "bulleted_list_item", "bulleted_list_item"}, types); diff != "" {
			t.Fatalf("blocks from markdown (-want +got):\n%s", diff)
		}
		italic := annOut()
		italic["italic"] = true
		world := txtOut("world")
		world["annotations"] = italic
		if diff := cmp.Diff([]any{txtOut("Hello "), world}, kids[1]["paragraph"].(map[string]any)["rich_text"]); diff != "" {
			t.Fatalf("paragraph from markdown (-want +got):\n%s", diff)
		}
		// Both at once is refused, and nothing is created.
		before := len(e.walk(t, "/v2/workspace/pages", e.full, 100))
		r := e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": wsParent, "children": []any{para("x")}, "markdown": "x"})
		wantDetail(t, r, 400, quire.CodeValidation, "markdown", quire.ReasonInvalidValue)
		// Bad content anywhere in the tree is refused with its path, and nothing is created.
		r = e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": wsParent, "children": []any{para("ok"), toggle("t", para("x", para("y", para("z"))))}})
		wantDetail(t, r, 400, quire.CodeValidation, "children[1].toggle.children[0].paragraph.children[0].paragraph.children", quire.ReasonInvalidValue)
		if after := len(e.walk(t, "/v2/workspace/pages", e.full, 100)); after != before {
			t.Fatalf("rejected creates wrote pages: %d before, %d after", before, after)
		}
	})
}

func TestCreatePage_Title(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		items := []any{txt("Hello "), map[string]any{"text": map[string]any{"content": "there", "link": map[string]any{"url": "https://example.com"}},
			"annotations": map[string]any{"bold": true, "color": "red_background"}}}
		there := map[string]any{"type": "text", "text": map[string]any{"content": "there", "link": map[string]any{"url": "https://example.com"}},
			"annotations": map[string]any{"bold": true, "italic": false, "strikethrough": false, "underline": false, "code": false,
				"text_color": "default", "background_color": "red"},
			"plain_text": "there", "href": "https://example.com"}
		want := []any{txtOut("Hello "), there}
		for _, tc := range []struct {
			name  string
			props any
			want  []any
		}{
			{"bare array", map[string]any{"title": items}, want},
			{"title object", map[string]any{"title": map[string]any{"title": items}}, want},
			{"typed", map[string]any{"title": map[string]any{"type": "title", "title": items}}, want},
			{"with id", map[string]any{"title": map[string]any{"id": "title", "type": "title", "title": items}}, want},
			{"empty", map[string]any{"title": []any{}}, []any{}},
			{"no properties", nil, []any{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				body := map[string]any{"parent": wsParent}
				if tc.props != nil {
					body["properties"] = tc.props
				}
				r := e.do(http.MethodPost, "/v2/pages", e.full, body)
				wantOK(t, r, 200)
				got := r.body["properties"].(map[string]any)["title"].(map[string]any)["title"]
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Fatalf("title (-want +got):\n%s", diff)
				}
				g := e.getPage(t, r.body["id"].(string))
				if diff := cmp.Diff(r.body["properties"], g.body["properties"]); diff != "" {
					t.Fatalf("GET properties (-post +get):\n%s", diff)
				}
			})
		}
		for _, tc := range []struct {
			name         string
			props        any
			path, reason string
		}{
			{"other property", map[string]any{"Name": []any{txt("x")}}, "properties.Name", quire.ReasonUnknownField},
			{"wrong type", map[string]any{"title": map[string]any{"type": "rich_text", "title": []any{}}}, "properties.title.type", quire.ReasonInvalidValue},
			{"string", map[string]any{"title": "x"}, "properties.title", quire.ReasonInvalidType},
			{"properties not an object", []any{}, "properties", quire.ReasonInvalidType},
			{"too long", map[string]any{"title": []any{txt(strings.Repeat("é", 2001))}}, "properties.title[0].text.content", quire.ReasonTooLong},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": wsParent, "properties": tc.props})
				wantDetail(t, r, 400, quire.CodeValidation, tc.path, tc.reason)
			})
		}
	})
}

func TestCreatePage_IconCover(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		emoji := map[string]any{"type": "emoji", "emoji": "📘"}
		ext := map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/i.png"}}
		for _, tc := range []struct {
			name              string
			icon, cover       any
			wantIcon, wantCov any
		}{
			{"emoji icon", emoji, nil, emoji, nil},
			{"external icon and cover", ext, ext, ext, ext},
			{"type left out", map[string]any{"emoji": "🔥"}, map[string]any{"external": map[string]any{"url": "https://example.com/c.png"}},
				emoji2("🔥"), map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/c.png"}}},
			{"null", nil, nil, nil, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				body := map[string]any{"parent": wsParent, "icon": tc.icon, "cover": tc.cover}
				r := e.do(http.MethodPost, "/v2/pages", e.full, body)
				wantOK(t, r, 200)
				if diff := cmp.Diff(map[string]any{"icon": tc.wantIcon, "cover": tc.wantCov},
					map[string]any{"icon": r.body["icon"], "cover": r.body["cover"]}); diff != "" {
					t.Fatalf("(-want +got):\n%s", diff)
				}
			})
		}
		for _, tc := range []struct {
			name         string
			body         map[string]any
			path, reason string
		}{
			{"emoji cover", map[string]any{"cover": emoji}, "cover.type", quire.ReasonInvalidValue},
			{"not an emoji", map[string]any{"icon": map[string]any{"type": "emoji", "emoji": "not one"}}, "icon.emoji", quire.ReasonInvalidValue},
			{"bad url", map[string]any{"icon": map[string]any{"type": "external", "external": map[string]any{"url": "javascript:alert(1)"}}},
				"icon.external.url", quire.ReasonInvalidValue},
			{"icon extra field", map[string]any{"icon": map[string]any{"type": "emoji", "emoji": "📘", "size": 3}}, "icon.size", quire.ReasonUnknownField},
			{"unknown icon type", map[string]any{"icon": map[string]any{"type": "sticker"}}, "icon.type", quire.ReasonInvalidValue},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tc.body["parent"] = wsParent
				wantDetail(t, e.do(http.MethodPost, "/v2/pages", e.full, tc.body), 400, quire.CodeValidation, tc.path, tc.reason)
			})
		}
	})
}

func emoji2(s string) map[string]any { return map[string]any{"type": "emoji", "emoji": s} }

func TestCreatePage_UnknownFields(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		top := e.mkPage(t, e.full, wsParent, "Top")
		for _, tc := range []struct {
			name string
			body map[string]any
			path string
		}{
			{"top level", map[string]any{"parent": wsParent, "colour": "red"}, "colour"},
			{"in parent", map[string]any{"parent": map[string]any{"page_id": top, "block_id": top}}, "parent.block_id"},
			{"in a block", map[string]any{"parent": wsParent, "children": []any{blk("paragraph", map[string]any{"rich_text": []any{}, "colour": "red"})}},
				"children[0].paragraph.colour"},
			{"beside a block's type", map[string]any{"parent": wsParent, "children": []any{map[string]any{"type": "divider", "divider": map[string]any{}, "id": "x"}}},
				"children[0].id"},
			{"in nested rich text", map[string]any{"parent": wsParent, "children": []any{toggle("t", blk("paragraph", map[string]any{
				"rich_text": []any{map[string]any{"text": map[string]any{"content": "x", "bold": true}}}}))}},
				"children[0].toggle.children[0].paragraph.rich_text[0].text.bold"},
			{"in annotations", map[string]any{"parent": wsParent, "properties": map[string]any{"title": []any{
				map[string]any{"text": map[string]any{"content": "x"}, "annotations": map[string]any{"shout": true}}}}},
				"properties.title[0].annotations.shout"},
			{"in title property", map[string]any{"parent": wsParent, "properties": map[string]any{"title": map[string]any{"title": []any{}, "name": "x"}}},
				"properties.title.name"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantDetail(t, e.do(http.MethodPost, "/v2/pages", e.full, tc.body), 400, quire.CodeValidation, tc.path, quire.ReasonUnknownField)
			})
		}
	})
}

func TestCreatePage_Parents(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		a := e.mkPage(t, e.full, wsParent, "A")
		b := e.mkPage(t, e.full, wsParent, "B")
		// Parent forms without "type", as clients of the original service send them.
		r := e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": map[string]any{"page_id": a}})
		wantOK(t, r, 200)
		if diff := cmp.Diff(pageParent(a), r.body["parent"]); diff != "" {
			t.Fatalf("parent (-want +got):\n%s", diff)
		}
		r = e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": map[string]any{"workspace": true}})
		wantOK(t, r, 200)
		if diff := cmp.Diff(wsParent, r.body["parent"]); diff != "" {
			t.Fatalf("parent (-want +got):\n%s", diff)
		}
		grantedA := e.token(quire.AllScopes, false, a)
		other := newEnv(t, st)
		foreign := other.mkPage(t, other.full, wsParent, "Elsewhere")
		unknown := quire.NewID()
		for _, tc := range []struct {
			name         string
			token        string
			parent       any
			status       int
			code         string
			path, reason string
		}{
			{"missing is the workspace, out of a granted token's reach", grantedA, nil, 403, quire.CodeForbidden, "", ""},
			{"null", e.full, "null", 400, quire.CodeValidation, "parent", quire.ReasonRequired},
			{"not an object", e.full, "x", 400, quire.CodeValidation, "parent", quire.ReasonInvalidType},
			{"no type and no id", e.full, map[string]any{}, 400, quire.CodeValidation, "parent.type", quire.ReasonRequired},
			{"unknown type", e.full, map[string]any{"type": "block_id", "block_id": a}, 400, quire.CodeValidation, "parent.type", quire.ReasonInvalidValue},
			{"not a uuid", e.full, map[string]any{"type": "page_id", "page_id": "nope"}, 400, quire.CodeValidation, "parent.page_id", quire.ReasonInvalidValue},
			{"id missing", e.full, map[string]any{"type": "page_id"}, 400, quire.CodeValidation, "parent.page_id", quire.ReasonRequired},
			{"id not a string", e.full, map[string]any{"page_id": 7}, 400, quire.CodeValidation, "parent.page_id", quire.ReasonInvalidType},
			{"workspace false", e.full, map[string]any{"type": "workspace", "workspace": false}, 400, quire.CodeValidation, "parent.workspace", quire.ReasonInvalidValue},
			{"two parents", e.full, map[string]any{"type": "page_id", "page_id": a, "workspace": true}, 400, quire.CodeValidation, "parent.workspace", quire.ReasonInvalidValue},
			{"unknown id", e.full, pageParent(unknown), 404, quire.CodeNotFound, "", ""},
			{"other workspace", e.full, pageParent(foreign), 404, quire.CodeNotFound, "", ""},
			{"out of reach", grantedA, pageParent(b), 404, quire.CodeNotFound, "", ""},
			{"unknown database", e.full, map[string]any{"database_id": unknown}, 404, quire.CodeNotFound, "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				body := map[string]any{"properties": titleOf("x")}
				switch tc.parent {
				case nil:
				case "null":
					body["parent"] = nil
				default:
					body["parent"] = tc.parent
				}
				r := e.do(http.MethodPost, "/v2/pages", tc.token, body)
				if tc.reason == "" {
					r.wantError(t, tc.status, tc.code, "")
					return
				}
				wantDetail(t, r, tc.status, tc.code, tc.path, tc.reason)
			})
		}
		// Nothing was created by the refusals: B still has no children, A has one.
		if n := len(e.kids(t, b)); n != 0 {
			t.Fatalf("B has %d children", n)
		}
		if n := len(e.kids(t, a)); n != 1 {
			t.Fatalf("A has %d children, want 1", n)
		}
	})
}

func TestGetPage(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		id := e.mkPage(t, e.full, wsParent, "P")
		e.do(http.MethodGet, "/v2/pages/"+quire.NewID(), e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		wantDetail(t, e.do(http.MethodGet, "/v2/pages/nope", e.full, nil), 400, quire.CodeValidation, "page_id", quire.ReasonInvalidValue)
		e.do(http.MethodGet, "/v2/pages/"+id, e.token([]quire.Scope{quire.BlocksRead}, true), nil).wantError(t, 403, quire.CodeForbidden, "")
		// A block id is not a page.
		b := e.appendKids(t, id, para("x"))[0]["id"].(string)
		e.do(http.MethodGet, "/v2/pages/"+b, e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		// In trash it stays readable.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+id, e.full, nil), 200)
		g := e.getPage(t, id)
		if g.body["in_trash"] != true {
			t.Fatalf("trashed page: in_trash = %v", g.body["in_trash"])
		}
		if !regexp.MustCompile(`^W/"\d+"$`).MatchString(g.header.Get("ETag")) {
			t.Fatalf("ETag = %q", g.header.Get("ETag"))
		}
	})
}

func TestPatchPage(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		parent := e.mkPage(t, e.full, wsParent, "Parent")
		id := e.mkPage(t, e.full, pageParent(parent), "Old")
		emoji := map[string]any{"type": "emoji", "emoji": "📘"}
		ext := map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/c.png"}}
		version := 1
		steps := []struct {
			name      string
			body      map[string]any
			title     string
			icon, cov any
			inTrash   bool
		}{
			{"title", map[string]any{"properties": titleOf("New")}, "New", nil, nil, false},
			{"icon", map[string]any{"icon": emoji}, "New", emoji, nil, false},
			{"cover", map[string]any{"cover": ext}, "New", emoji, ext, false},
			{"everything", map[string]any{"properties": map[string]any{"title": map[string]any{"title": []any{txt("Both")}}}, "icon": ext, "cover": ext},
				"Both", ext, ext, false},
			{"cover null clears it", map[string]any{"cover": nil}, "Both", ext, nil, false},
			{"icon null clears it", map[string]any{"icon": nil}, "Both", nil, nil, false},
			{"empty body changes nothing", map[string]any{}, "Both", nil, nil, false},
			{"trash", map[string]any{"in_trash": true}, "Both", nil, nil, true},
			{"restore", map[string]any{"in_trash": false}, "Both", nil, nil, false},
		}
		for _, s := range steps {
			t.Run(s.name, func(t *testing.T) {
				r := e.do(http.MethodPatch, "/v2/pages/"+id, e.full, s.body)
				wantOK(t, r, 200)
				version++
				if got := r.header.Get("ETag"); got != fmt.Sprintf(`W/"%d"`, version) {
					t.Errorf("ETag = %q, want W/\"%d\"", got, version)
				}
				want := e.pageWant(id, "page", pageParent(parent), []any{txtOut(s.title)}, s.inTrash, s.icon, s.cov)
				if diff := cmp.Diff(want, volatile(t, r.body)); diff != "" {
					t.Fatalf("PATCH answer (-want +got):\n%s", diff)
				}
				g := e.getPage(t, id)
				if diff := cmp.Diff(r.body, g.body); diff != "" {
					t.Fatalf("GET after PATCH (-patch +get):\n%s", diff)
				}
			})
		}
		// If-Match: a stale version changes nothing; the current one goes through.
		before := e.getPage(t, id)
		stale := fmt.Sprintf(`W/"%d"`, version-1)
		for _, body := range []map[string]any{{"properties": titleOf("Lost")}, {"in_trash": true}, {"icon": emoji}} {
			e.do(http.MethodPatch, "/v2/pages/"+id, e.full, body, "If-Match", stale).wantError(t, 409, quire.CodeConflict, "")
		}
		after := e.getPage(t, id)
		if diff := cmp.Diff(before.body, after.body); diff != "" || after.header.Get("ETag") != before.header.Get("ETag") {
			t.Fatalf("a refused PATCH changed the page (-before +after):\n%s", diff)
		}
		r := e.do(http.MethodPatch, "/v2/pages/"+id, e.full, map[string]any{"properties": titleOf("Matched")}, "If-Match", before.header.Get("ETag"))
		wantOK(t, r, 200)
		if r.header.Get("ETag") != fmt.Sprintf(`W/"%d"`, version+1) {
			t.Fatalf("ETag after a matching If-Match = %q", r.header.Get("ETag"))
		}
		// The old ETag is stale now.
		e.do(http.MethodPatch, "/v2/pages/"+id, e.full, map[string]any{}, "If-Match", before.header.Get("ETag")).wantError(t, 409, quire.CodeConflict, "")

		// Writing to a trashed page is refused with archived; restoring (with changes) works.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+id, e.full, nil), 200)
		trashed := e.getPage(t, id)
		for _, body := range []map[string]any{{"properties": titleOf("No")}, {"icon": emoji}, {"cover": nil}} {
			wantDetail(t, e.do(http.MethodPatch, "/v2/pages/"+id, e.full, body), 400, quire.CodeValidation, "in_trash", quire.ReasonArchived)
		}
		if diff := cmp.Diff(trashed.body, e.getPage(t, id).body); diff != "" {
			t.Fatalf("a refused PATCH changed the trashed page (-before +after):\n%s", diff)
		}
		r = e.do(http.MethodPatch, "/v2/pages/"+id, e.full, map[string]any{"in_trash": false, "properties": titleOf("Back")})
		wantOK(t, r, 200)
		want := e.pageWant(id, "page", pageParent(parent), []any{txtOut("Back")}, false, nil, nil)
		if diff := cmp.Diff(want, volatile(t, r.body)); diff != "" {
			t.Fatalf("restored page (-want +got):\n%s", diff)
		}

		// Bad bodies.
		for _, tc := range []struct {
			name         string
			body         any
			path, reason string
		}{
			{"unknown field", map[string]any{"title": "x"}, "title", quire.ReasonUnknownField},
			{"parent is moved, not patched", map[string]any{"parent": wsParent}, "parent", quire.ReasonUnknownField},
			{"in_trash not a boolean", map[string]any{"in_trash": "yes"}, "in_trash", quire.ReasonInvalidType},
			{"emoji cover", map[string]any{"cover": emoji}, "cover.type", quire.ReasonInvalidValue},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantDetail(t, e.do(http.MethodPatch, "/v2/pages/"+id, e.full, tc.body), 400, quire.CodeValidation, tc.path, tc.reason)
			})
		}
		e.do(http.MethodPatch, "/v2/pages/"+quire.NewID(), e.full, map[string]any{}).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodPatch, "/v2/pages/"+id, e.token([]quire.Scope{quire.PagesRead}, true), map[string]any{}).wantError(t, 403, quire.CodeForbidden, "")
	})
}

// pageIDs are the ids of a listing, walked whole.
func (e *env) pageIDs(t testing.TB, path, token string) []string {
	t.Helper()
	if path == "/v2/pages" {
		return e.treeIDs(t, token)
	}
	return idsOf(e.walk(t, path, token, 100))
}

// treeIDs walks what token reaches as a client of the original service does: GET /v2/pages,
// then GET /v2/pages?parent_id= under every node with has_children. It answers the pages met
// (records too, not databases), each once, in walk order.
func (e *env) treeIDs(t testing.TB, token string) []string {
	t.Helper()
	var ids []string
	seen := map[string]bool{}
	var visit func(path string)
	visit = func(path string) {
		for _, n := range e.walk(t, path, token, 100) {
			id := n["id"].(string)
			if seen[id] || n["object"] != "page_node" {
				t.Fatalf("%s: %s listed twice, or not a page_node: %v", path, id, n)
			}
			seen[id] = true
			if n["type"] == "page" {
				ids = append(ids, id)
			}
			if n["has_children"] == true {
				visit("/v2/pages?parent_id=" + id)
			}
		}
	}
	visit("/v2/pages")
	return ids
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func TestTrashPage(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		root := e.mkPage(t, e.full, wsParent, "Root")
		p := e.mkPage(t, e.full, pageParent(root), "P")
		c := e.mkPage(t, e.full, pageParent(p), "C")
		g := e.mkPage(t, e.full, pageParent(c), "G", map[string]any{"children": []any{para("deep")}})
		sibling := e.mkPage(t, e.full, pageParent(root), "Sibling")
		deep := e.kidIDs(t, g)[0]

		r := e.do(http.MethodDelete, "/v2/pages/"+p, e.full, nil)
		wantOK(t, r, 200)
		if r.body["in_trash"] != true {
			t.Fatalf("DELETE answer: in_trash = %v", r.body["in_trash"])
		}
		// Still readable, with its descendants (which are not themselves in trash).
		if e.getPage(t, p).body["in_trash"] != true {
			t.Fatal("trashed page does not read as in trash")
		}
		for _, id := range []string{c, g} {
			if e.getPage(t, id).body["in_trash"] != false {
				t.Fatalf("descendant %s reads as in trash itself", id)
			}
		}
		if r := e.do(http.MethodGet, "/v2/blocks/"+deep, e.full, nil); r.status != 200 {
			t.Fatalf("block under a trashed page: %d", r.status)
		}
		// Its child_page block leaves the parent's content.
		if diff := cmp.Diff([]string{sibling}, e.kidIDs(t, root)); diff != "" {
			t.Fatalf("root's children (-want +got):\n%s", diff)
		}
		if b := e.do(http.MethodGet, "/v2/blocks/"+p, e.full, nil); b.status != 200 || b.body["in_trash"] != true {
			t.Fatalf("child_page block of a trashed page: %d %s", b.status, b.raw)
		}
		// It and its descendants are hidden from listings; the trash lists it alone.
		hidden := []string{p, c, g}
		for _, path := range []string{"/v2/pages", "/v2/workspace/pages/recent", "/v2/workspace/pages"} {
			ids := e.pageIDs(t, path, e.full)
			for _, id := range hidden {
				if contains(ids, id) {
					t.Errorf("%s lists %s, which is in or under trash", path, id)
				}
			}
			if path != "/v2/workspace/pages" && !contains(ids, sibling) {
				t.Errorf("%s lost the sibling", path)
			}
		}
		if diff := cmp.Diff([]string{p}, e.pageIDs(t, "/v2/workspace/pages/trash", e.full)); diff != "" {
			t.Fatalf("trash (-want +got):\n%s", diff)
		}
		// A descendant cannot be written while hidden.
		wantDetail(t, e.do(http.MethodPatch, "/v2/pages/"+g, e.full, map[string]any{"properties": titleOf("x")}), 400,
			quire.CodeValidation, "in_trash", quire.ReasonArchived)
		r = e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": pageParent(c)})
		if r.status != 400 {
			t.Fatalf("create under a page under trash: %d %s", r.status, r.raw)
		}
		// DELETE twice is harmless.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+p, e.full, nil), 200)
		// Restore brings everything back, in place.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+p, e.full, map[string]any{"in_trash": false}), 200)
		if diff := cmp.Diff([]string{p, sibling}, e.kidIDs(t, root)); diff != "" {
			t.Fatalf("root's children after restore (-want +got):\n%s", diff)
		}
		ids := e.pageIDs(t, "/v2/pages", e.full)
		for _, id := range hidden {
			if !contains(ids, id) {
				t.Errorf("/v2/pages lacks %s after restore", id)
			}
		}
		if n := len(e.pageIDs(t, "/v2/workspace/pages/trash", e.full)); n != 0 {
			t.Fatalf("trash holds %d after restore", n)
		}
		e.do(http.MethodDelete, "/v2/pages/"+quire.NewID(), e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
	})
}

func TestMovePage(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		a := e.mkPage(t, e.full, wsParent, "A")
		b := e.mkPage(t, e.full, wsParent, "B")
		a1 := e.mkPage(t, e.full, pageParent(a), "A1")
		a2 := e.mkPage(t, e.full, pageParent(a), "A2")
		b1 := e.mkPage(t, e.full, pageParent(b), "B1")
		b2 := e.mkPage(t, e.full, pageParent(b), "B2")
		move := func(id string, body map[string]any) *response {
			return e.do(http.MethodPatch, "/v2/pages/"+id+"/move", e.full, body)
		}

		// Under another page, right after a given sibling.
		r := move(a1, map[string]any{"parent": pageParent(b), "after": b1})
		wantOK(t, r, 200)
		if diff := cmp.Diff(pageParent(b), r.body["parent"]); diff != "" {
			t.Fatalf("parent after move (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{b1, a1, b2}, e.kidIDs(t, b)); diff != "" {
			t.Fatalf("B's children (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{a2}, e.kidIDs(t, a)); diff != "" {
			t.Fatalf("A's children (-want +got):\n%s", diff)
		}
		kb := e.do(http.MethodGet, "/v2/blocks/"+a1, e.full, nil)
		if diff := cmp.Diff(pageParent(b), kb.body["parent"]); diff != "" {
			t.Fatalf("child_page block's parent (-want +got):\n%s", diff)
		}
		// Without after: at the end. The type of the parent may be left out.
		wantOK(t, move(a2, map[string]any{"parent": map[string]any{"page_id": b}}), 200)
		if diff := cmp.Diff([]string{b1, a1, b2, a2}, e.kidIDs(t, b)); diff != "" {
			t.Fatalf("B's children (-want +got):\n%s", diff)
		}
		// To the workspace, at the end of the sidebar, then after A.
		r = move(b1, map[string]any{"parent": wsParent})
		wantOK(t, r, 200)
		if diff := cmp.Diff(wsParent, r.body["parent"]); diff != "" {
			t.Fatalf("parent (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{a, b, b1}, e.pageIDs(t, "/v2/workspace/pages", e.full)); diff != "" {
			t.Fatalf("sidebar (-want +got):\n%s", diff)
		}
		if contains(e.kidIDs(t, b), b1) {
			t.Fatal("a page moved to the workspace still has a child_page block in its old parent")
		}
		wantOK(t, move(b1, map[string]any{"parent": wsParent, "after": a}), 200)
		if diff := cmp.Diff([]string{a, b1, b}, e.pageIDs(t, "/v2/workspace/pages", e.full)); diff != "" {
			t.Fatalf("sidebar (-want +got):\n%s", diff)
		}
		// Back under a page from the workspace, with after null as the original service's clients send it.
		wantOK(t, move(b1, map[string]any{"parent": pageParent(a), "after": nil}), 200)
		if diff := cmp.Diff([]string{a, b}, e.pageIDs(t, "/v2/workspace/pages", e.full)); diff != "" {
			t.Fatalf("sidebar (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{b1}, e.kidIDs(t, a)); diff != "" {
			t.Fatalf("A's children (-want +got):\n%s", diff)
		}

		// Cycles: under itself, under a child, under a grandchild.
		deep := e.mkPage(t, e.full, pageParent(a1), "Deep")
		for _, tc := range []struct{ name, id, to string }{
			{"under itself", b, b},
			{"under its child", b, a1},
			{"under its grandchild", b, deep},
			{"nested page under its child", a1, deep},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.getPage(t, tc.id)
				wantDetail(t, move(tc.id, map[string]any{"parent": pageParent(tc.to)}), 400, quire.CodeValidation, "parent.page_id", quire.ReasonCycle)
				if diff := cmp.Diff(before.body, e.getPage(t, tc.id).body); diff != "" {
					t.Fatalf("a refused move changed the page (-before +after):\n%s", diff)
				}
			})
		}
		// Other refusals.
		grantedA := e.token(quire.AllScopes, false, a)
		for _, tc := range []struct {
			name         string
			token, id    string
			body         any
			status       int
			path, reason string
		}{
			{"after not a sibling", e.full, a2, map[string]any{"parent": pageParent(a), "after": b2}, 400, "after", quire.ReasonInvalidValue},
			{"after not a uuid", e.full, a2, map[string]any{"parent": pageParent(a), "after": "x"}, 400, "after", quire.ReasonInvalidValue},
			{"unknown field", e.full, a2, map[string]any{"parent": pageParent(a), "position": 1}, 400, "position", quire.ReasonUnknownField},
			{"no parent", e.full, a2, map[string]any{}, 400, "parent", quire.ReasonRequired},
			{"unknown parent", e.full, a2, map[string]any{"parent": pageParent(quire.NewID())}, 404, "", ""},
			{"unknown page", e.full, quire.NewID(), map[string]any{"parent": wsParent}, 404, "", ""},
			{"granted token to the workspace", grantedA, b1, map[string]any{"parent": wsParent}, 403, "", ""},
			{"granted token out of reach", grantedA, b1, map[string]any{"parent": pageParent(b)}, 404, "", ""},
			{"granted token moving what it does not reach", grantedA, b2, map[string]any{"parent": pageParent(a)}, 404, "", ""},
			{"stale If-Match", e.full, a2, map[string]any{"parent": pageParent(a)}, 409, "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var headers []string
				if tc.status == 409 {
					headers = []string{"If-Match", `W/"1"`}
				}
				r := e.do(http.MethodPatch, "/v2/pages/"+tc.id+"/move", tc.token, tc.body, headers...)
				code := map[int]string{400: quire.CodeValidation, 403: quire.CodeForbidden, 404: quire.CodeNotFound, 409: quire.CodeConflict}[tc.status]
				if tc.path == "" {
					r.wantError(t, tc.status, code, "")
					return
				}
				wantDetail(t, r, tc.status, code, tc.path, tc.reason)
			})
		}
		// The tree is as the successful moves left it.
		if diff := cmp.Diff([]string{b1}, e.kidIDs(t, a)); diff != "" {
			t.Fatalf("A's children (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{a1, b2, a2}, e.kidIDs(t, b)); diff != "" {
			t.Fatalf("B's children (-want +got):\n%s", diff)
		}
		// A granted token moves within its reach.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+b1+"/move", grantedA, map[string]any{"parent": pageParent(a)}), 200)
		// A trashed page cannot move; a page cannot move under a trashed one.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+a2, e.full, nil), 200)
		wantDetail(t, move(a2, map[string]any{"parent": pageParent(a)}), 400, quire.CodeValidation, "page_id", quire.ReasonArchived)
		wantDetail(t, move(b2, map[string]any{"parent": pageParent(a2)}), 400, quire.CodeValidation, "parent.page_id", quire.ReasonArchived)
	})
}

// TestMovePage_Race moves pages across each other from many clients at once (A under B while B
// goes under A, and longer chains): every move either happens or is refused as a cycle, and
// afterwards the tree has no cycle, every page still reaches the workspace, and every page
// under a page has exactly one child_page block, in its parent.
func TestMovePage_Race(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		root := e.mkPage(t, e.full, wsParent, "Root")
		const n = 8
		pages := make([]string, n)
		for i := range pages {
			pages[i] = e.mkPage(t, e.full, pageParent(root), fmt.Sprintf("P%d", i))
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for round := range 4 {
			type mv struct{ id, to string }
			var moves []mv
			// Crossing pairs: i under j and j under i.
			for k := 0; k < 6; k++ {
				i, j := rng.IntN(n), rng.IntN(n)
				if i == j {
					j = (i + 1) % n
				}
				moves = append(moves, mv{pages[i], pages[j]}, mv{pages[j], pages[i]})
			}
			// A ring: 0 under 1 under 2 … under 0.
			perm := rng.Perm(n)
			for k := range perm {
				moves = append(moves, mv{pages[perm[k]], pages[perm[(k+1)%n]]})
			}
			// Some go back to the root or the workspace.
			moves = append(moves, mv{pages[rng.IntN(n)], root}, mv{pages[rng.IntN(n)], ""})
			statuses := make([]int, len(moves))
			bodies := make([]string, len(moves))
			var wg sync.WaitGroup
			for k, m := range moves {
				wg.Add(1)
				go func() {
					defer wg.Done()
					parent := any(wsParent)
					if m.to != "" {
						parent = pageParent(m.to)
					}
					statuses[k], bodies[k] = e.rawDo(http.MethodPatch, "/v2/pages/"+m.id+"/move", map[string]any{"parent": parent})
				}()
			}
			wg.Wait()
			moved := 0
			for k, s := range statuses {
				switch {
				case s == 200:
					moved++
				case s == 400 && regexp.MustCompile(`"reason":"cycle"`).MatchString(bodies[k]):
				default:
					t.Fatalf("round %d: move %v answered %d %s", round, moves[k], s, bodies[k])
				}
			}
			if moved == 0 {
				t.Fatalf("round %d: no move happened", round)
			}
			e.checkTree(t, append([]string{root}, pages...))
		}
	})
}

// rawDo sends one request with the full token from any goroutine and returns status and body.
func (e *env) rawDo(method, path string, body any) (int, string) {
	buf, _ := json.Marshal(body)
	req, err := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(buf))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+e.full)
	req.Header.Set("Content-Type", "application/json")
	res, err := e.srv.Client().Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

// checkTree walks up from each page to the workspace (no cycle, nothing lost), and checks that
// the child_page blocks mirror the parents exactly.
func (e *env) checkTree(t *testing.T, pages []string) {
	t.Helper()
	parentOf := map[string]string{}
	for _, id := range pages {
		p := e.getPage(t, id).body["parent"].(map[string]any)
		switch p["type"] {
		case "workspace":
			parentOf[id] = ""
		case "page_id":
			parentOf[id] = p["page_id"].(string)
		default:
			t.Fatalf("page %s has parent %v", id, p)
		}
	}
	for _, id := range pages {
		seen := map[string]bool{}
		for at := id; at != ""; at = parentOf[at] {
			if seen[at] {
				t.Fatalf("cycle through %s: parents %v", at, parentOf)
			}
			seen[at] = true
			if _, ok := parentOf[at]; !ok {
				t.Fatalf("page %s has an unknown parent", at)
			}
		}
	}
	blocksIn := map[string][]string{}
	for _, id := range pages {
		for _, b := range e.kids(t, id) {
			if b["type"] == "child_page" {
				blocksIn[b["id"].(string)] = append(blocksIn[b["id"].(string)], id)
			}
		}
	}
	for _, id := range pages {
		want := []string(nil)
		if parentOf[id] != "" {
			want = []string{parentOf[id]}
		}
		if diff := cmp.Diff(want, blocksIn[id]); diff != "" {
			t.Errorf("child_page blocks of %s are in (-want +got):\n%s", id, diff)
		}
	}
	listed := e.pageIDs(t, "/v2/pages", e.full)
	for _, id := range pages {
		if !contains(listed, id) {
			t.Errorf("page %s is no longer listed", id)
		}
	}
}

// TestPatchPage_Concurrent: without If-Match, concurrent writes to one page (renames, moves,
// appends to its content) all succeed; the last rename wins and the version counts every
// change.
func TestPatchPage_Concurrent(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		a := e.mkPage(t, e.full, wsParent, "A")
		b := e.mkPage(t, e.full, wsParent, "B")
		page := e.mkPage(t, e.full, pageParent(a), "Busy")
		kids := e.appendKids(t, page, para("edited"), blk("to_do", map[string]any{"rich_text": []any{}}))
		blockID, todo := kids[0]["id"].(string), kids[1]["id"].(string)
		const n = 8
		type req struct {
			method, path string
			body         any
		}
		var reqs []req
		for i := range n {
			reqs = append(reqs,
				req{http.MethodPatch, "/v2/pages/" + page, map[string]any{"properties": titleOf(fmt.Sprint("title ", i))}},
				req{http.MethodPatch, "/v2/blocks/" + page + "/children", map[string]any{"children": []any{para(fmt.Sprint(i))}}},
				req{http.MethodPatch, "/v2/blocks/" + blockID, map[string]any{"paragraph": map[string]any{"rich_text": []any{txt(fmt.Sprint(i))}}}},
				req{http.MethodPatch, "/v2/blocks/" + blockID + "/children", map[string]any{"children": []any{para(fmt.Sprint(i))}}},
			)
			to := a
			if i%2 == 1 {
				to = b
			}
			reqs = append(reqs, req{http.MethodPatch, "/v2/pages/" + page + "/move", map[string]any{"parent": pageParent(to)}})
		}
		// Partial updates of one block, each to another field: none is lost.
		for _, c := range []map[string]any{{"checked": true}, {"text_color": "red"}, {"background_color": "blue"}, {"rich_text": []any{txt("all")}}} {
			reqs = append(reqs, req{http.MethodPatch, "/v2/blocks/" + todo, map[string]any{"to_do": c}})
		}
		statuses := make([]int, len(reqs))
		bodies := make([]string, len(reqs))
		var wg sync.WaitGroup
		for i, r := range reqs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i], bodies[i] = e.rawDo(r.method, r.path, r.body)
			}()
		}
		wg.Wait()
		for i, s := range statuses {
			if s != 200 {
				t.Errorf("%s %s: %d %s", reqs[i].method, reqs[i].path, s, bodies[i])
			}
		}
		if n := len(e.kids(t, page)); n != 2+8 {
			t.Fatalf("children = %d, want 10", n)
		}
		want := jsonValue(t, `{"rich_text":[%s],"checked":true,"text_color":"red","background_color":"blue"}`, rtJSON("all"))
		if diff := cmp.Diff(want, e.do(http.MethodGet, "/v2/blocks/"+todo, e.full, nil).body["to_do"]); diff != "" {
			t.Fatalf("to_do after concurrent partial updates (-want +got):\n%s", diff)
		}
		// Every change counted once in the page's version: created, one append, then 5×8 + 4.
		if got := e.getPage(t, page).header.Get("ETag"); got != `W/"46"` {
			t.Fatalf("page ETag = %s, want W/\"46\"", got)
		}
		if n := len(e.kids(t, blockID)); n != 8 {
			t.Fatalf("block children = %d, want 8", n)
		}
		e.checkTree(t, []string{a, b, page})
	})
}

// TestPageProperty_PlainPage reads the title of a page outside a database as a list of
// property items; other property ids do not exist there.
func TestPageProperty_PlainPage(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		id := e.mkPage(t, e.full, wsParent, "Plain title")
		r := e.do(http.MethodGet, "/v2/pages/"+id+"/properties/title", e.full, nil)
		wantOK(t, r, 200)
		items := objects(r.body["results"])
		if r.body["object"] != "list" || len(items) != 1 || items[0]["object"] != "property_item" || items[0]["type"] != "title" {
			t.Fatalf("title property item: %s", r.raw)
		}
		if diff := cmp.Diff(txtOut("Plain title"), items[0]["title"]); diff != "" {
			t.Fatalf("title item (-want +got):\n%s", diff)
		}
		e.do(http.MethodGet, "/v2/pages/"+id+"/properties/Status", e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodGet, "/v2/pages/"+quire.NewID()+"/properties/title", e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
	})
}
