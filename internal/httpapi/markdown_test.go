package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// styled is a text item with annotations (and a link when url is set).
func styled(s string, ann map[string]any, url string) map[string]any {
	it := map[string]any{"type": "text", "text": map[string]any{"content": s}}
	if ann != nil {
		it["annotations"] = ann
	}
	if url != "" {
		it["text"].(map[string]any)["link"] = map[string]any{"url": url}
	}
	return it
}

func rich(typ string, extra map[string]any, items ...any) map[string]any {
	c := map[string]any{"rich_text": items}
	for k, v := range extra {
		c[k] = v
	}
	return blk(typ, c)
}

// exportMD reads a page's Markdown through the API and checks the answer's shape.
func (e *env) exportMD(t testing.TB, id string) string {
	t.Helper()
	r := e.do(http.MethodGet, "/v2/pages/"+id+"/content/markdown", e.full, nil)
	wantOK(t, r, 200)
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q", ct)
	}
	md, _ := r.body["markdown"].(string)
	want := map[string]any{"object": "markdown", "page_id": id, "markdown": md}
	if diff := cmp.Diff(want, r.body); diff != "" {
		t.Fatalf("markdown answer (-want +got):\n%s", diff)
	}
	return md
}

// richPage builds, through the JSON API, a page holding one of each kind of block that has a
// Markdown form, and returns its id and the id of its child page.
func (e *env) richPage(t testing.TB) (string, string) {
	t.Helper()
	page := e.mkPage(t, e.full, wsParent, "Doc")
	e.appendKids(t, page,
		rich("heading_1", nil, txt("Title")),
		rich("paragraph", nil, txt("Some "), styled("bold", map[string]any{"bold": true}, ""), txt(" and "),
			styled("italic", map[string]any{"italic": true}, ""), txt(" and "), styled("code", map[string]any{"code": true}, ""),
			txt(" and "), styled("gone", map[string]any{"strikethrough": true}, ""), txt(" and "),
			styled("link", nil, "https://example.com/x"), txt(" and "), styled("red", map[string]any{"color": "red"}, "")),
		rich("bulleted_list_item", map[string]any{"children": []any{
			rich("bulleted_list_item", map[string]any{"children": []any{rich("bulleted_list_item", nil, txt("one.a.i"))}}, txt("one.a"))}}, txt("one")),
		rich("bulleted_list_item", nil, txt("two")),
	)
	e.appendKids(t, page,
		rich("numbered_list_item", nil, txt("first")),
		rich("numbered_list_item", map[string]any{"children": []any{rich("numbered_list_item", nil, txt("second.a"))}}, txt("second")),
		rich("paragraph", nil, txt(`"Quoted" 日本語 ✓`)),
		rich("to_do", nil, txt("todo")),
		rich("to_do", map[string]any{"checked": true}, txt("done")),
		rich("code", map[string]any{"language": "go"}, txt("fmt.Println(\"hi\")\nreturn")),
		blk("table", map[string]any{"table_width": 2, "has_column_header": true, "children": []any{
			blk("table_row", map[string]any{"cells": []any{[]any{txt("h1")}, []any{txt("h2")}}}),
			blk("table_row", map[string]any{"cells": []any{[]any{txt("a")}, []any{txt("b")}}}),
		}}),
		blk("divider", map[string]any{}),
		blk("equation", map[string]any{"expression": "E = mc^2"}),
		rich("toggle", map[string]any{"children": []any{para("hidden")}}, txt("More")),
		rich("quote", nil, txt("quoted")),
	)
	sub := e.mkPage(t, e.full, pageParent(page), "Sub")
	return page, sub
}

func TestMarkdown_Export(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page, sub := e.richPage(t)
		want := "# Title\n" +
			"\n" +
			"Some **bold** and *italic* and `code` and ~~gone~~ and [link](https://example.com/x) and red\n" +
			"\n" +
			"- one\n" +
			"  - one.a\n" +
			"    - one.a.i\n" +
			"- two\n" +
			"1. first\n" +
			"2. second\n" +
			"   1. second.a\n" +
			"\n" +
			"\"Quoted\" 日本語 ✓\n" +
			"\n" +
			"- [ ] todo\n" +
			"- [x] done\n" +
			"\n" +
			"```go\n" +
			"fmt.Println(\"hi\")\n" +
			"return\n" +
			"```\n" +
			"\n" +
			"| h1 | h2 |\n" +
			"| --- | --- |\n" +
			"| a | b |\n" +
			"\n" +
			"---\n" +
			"\n" +
			"$$\n" +
			"E = mc^2\n" +
			"$$\n" +
			"\n" +
			"<details>\n" +
			"<summary>More</summary>\n" +
			"\n" +
			"hidden\n" +
			"\n" +
			"</details>\n" +
			"\n" +
			"> quoted\n" +
			"\n" +
			"[Sub](" + e.srv.URL + "/v2/pages/" + sub + ")\n"
		if diff := cmp.Diff(want, e.exportMD(t, page)); diff != "" {
			t.Fatalf("markdown (-want +got):\n%s", diff)
		}
		// Trashed blocks and trashed child pages are left out; the page in trash still reads.
		kids := e.kidIDs(t, page)
		wantOK(t, e.do(http.MethodDelete, "/v2/blocks/"+kids[0], e.full, nil), 200)
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+sub, e.full, nil), 200)
		got := e.exportMD(t, page)
		if strings.Contains(got, "# Title") || strings.Contains(got, "[Sub]") {
			t.Fatalf("trashed content exported:\n%s", got)
		}
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+page, e.full, nil), 200)
		if again := e.exportMD(t, page); again != got {
			t.Fatalf("a trashed page exports differently:\n%s", again)
		}
		// The Markdown is a JSON string however odd the text: quotes, backslashes, tabs, line
		// and paragraph separators, control characters.
		odd := e.mkPage(t, e.full, wsParent, "Odd", map[string]any{"children": []any{para("a\u2028b\tc\\d \x01 \"q\" é\u2029")}})
		if diff := cmp.Diff("a\u2028b\tc\\d &#1; \"q\" é\u2029\n", e.exportMD(t, odd)); diff != "" {
			t.Fatalf("markdown of odd text (-want +got):\n%s", diff)
		}
		// An empty page is empty Markdown.
		if md := e.exportMD(t, e.mkPage(t, e.full, wsParent, "Empty")); md != "" {
			t.Fatalf("empty page: %q", md)
		}
		// Errors.
		e.do(http.MethodGet, "/v2/pages/"+quire.NewID()+"/content/markdown", e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		wantDetail(t, e.do(http.MethodGet, "/v2/pages/x/content/markdown", e.full, nil), 400, quire.CodeValidation, "page_id", quire.ReasonInvalidValue)
		for _, scopes := range [][]quire.Scope{{quire.PagesRead}, {quire.BlocksRead}} {
			e.do(http.MethodGet, "/v2/pages/"+page+"/content/markdown", e.token(scopes, true), nil).wantError(t, 403, quire.CodeForbidden, "")
		}
	})
}

func TestMarkdown_Replace(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Doc")
		old := idsOf(e.appendKids(t, page, para("old one"), toggle("old two", para("inner"))))
		sub := e.mkPage(t, e.full, pageParent(page), "Sub")
		r := e.do(http.MethodPut, "/v2/pages/"+page+"/content/markdown", e.full, map[string]any{"markdown": "## New\n\n- a\n  - b\n\n```python\nprint(1)\n```\n"})
		wantOK(t, r, 200)
		if r.body["object"] != "page" || r.body["id"] != page || r.header.Get("ETag") == "" {
			t.Fatalf("PUT answer: %s", r.raw)
		}
		if g := e.getPage(t, page); g.header.Get("ETag") != r.header.Get("ETag") {
			t.Fatalf("PUT answered ETag %s, the page has %s", r.header.Get("ETag"), g.header.Get("ETag"))
		}
		// The old blocks are in trash (still readable); the child page stays.
		for _, id := range old {
			b := e.do(http.MethodGet, "/v2/blocks/"+id, e.full, nil)
			if b.status != 200 || b.body["in_trash"] != true {
				t.Fatalf("old block %s: %d %s", id, b.status, b.raw)
			}
		}
		kids := e.kids(t, page)
		var types []string
		for _, k := range kids {
			types = append(types, k["type"].(string))
		}
		if diff := cmp.Diff([]string{"child_page", "heading_2", "bulleted_list_item", "code"}, types); diff != "" {
			t.Fatalf("children (-want +got):\n%s", diff)
		}
		if kids[0]["id"] != sub || e.getPage(t, sub).body["in_trash"] != false {
			t.Fatal("the child page did not stay")
		}
		code := kids[3]["code"].(map[string]any)
		if diff := cmp.Diff(map[string]any{"rich_text": []any{txtOut("print(1)")}, "caption": []any{}, "language": "python"}, code); diff != "" {
			t.Fatalf("code (-want +got):\n%s", diff)
		}
		nested := e.kids(t, kids[2]["id"].(string))
		if len(nested) != 1 || nested[0]["bulleted_list_item"].(map[string]any)["rich_text"].([]any)[0].(map[string]any)["plain_text"] != "b" {
			t.Fatalf("nested list: %v", nested)
		}
		// Refusals change nothing.
		before := e.exportMD(t, page)
		beforeKids := e.kidIDs(t, page)
		huge := strings.Repeat("para\n\n", 200000)
		for _, tc := range []struct {
			name         string
			body         any
			status       int
			path, reason string
		}{
			{"over 1 MiB", map[string]any{"markdown": huge}, 413, "", ""},
			{"no markdown", map[string]any{}, 400, "markdown", quire.ReasonRequired},
			{"not a string", map[string]any{"markdown": 3}, 400, "markdown", quire.ReasonInvalidType},
			{"unknown field", map[string]any{"markdown": "x", "mode": "append"}, 400, "mode", quire.ReasonUnknownField},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPut, "/v2/pages/"+page+"/content/markdown", e.full, tc.body)
				if tc.status == 413 {
					r.wantError(t, 413, quire.CodePayloadTooLarge, "")
				} else {
					wantDetail(t, r, tc.status, quire.CodeValidation, tc.path, tc.reason)
				}
				if diff := cmp.Diff(beforeKids, e.kidIDs(t, page)); diff != "" {
					t.Fatalf("a refused PUT changed the children (-before +after):\n%s", diff)
				}
				if after := e.exportMD(t, page); after != before {
					t.Fatalf("a refused PUT changed the Markdown:\n%s", after)
				}
			})
		}
		// Folders take no content; unknown pages answer 404; scopes are checked first.
		folder := e.mkPage(t, e.full, wsParent, "F", map[string]any{"page_type": "folder"})
		wantDetail(t, e.do(http.MethodPut, "/v2/pages/"+folder+"/content/markdown", e.full, map[string]any{"markdown": "x"}),
			400, quire.CodeValidation, "markdown", quire.ReasonInvalidValue)
		e.do(http.MethodPut, "/v2/pages/"+quire.NewID()+"/content/markdown", e.full, map[string]any{"markdown": "x"}).wantError(t, 404, quire.CodeNotFound, "")
		for _, scopes := range [][]quire.Scope{{quire.PagesWrite, quire.BlocksRead}, {quire.BlocksWrite, quire.PagesRead}} {
			e.do(http.MethodPut, "/v2/pages/"+page+"/content/markdown", e.token(scopes, true), map[string]any{"markdown": "x"}).
				wantError(t, 403, quire.CodeForbidden, "")
		}
		// An empty text clears the content but the child page.
		wantOK(t, e.do(http.MethodPut, "/v2/pages/"+page+"/content/markdown", e.full, map[string]any{"markdown": ""}), 200)
		if diff := cmp.Diff([]string{sub}, e.kidIDs(t, page)); diff != "" {
			t.Fatalf("children after an empty PUT (-want +got):\n%s", diff)
		}
		// A link to a child page, as an export writes it, places the content around that page
		// instead of adding a link.
		md := "before\n\n[Sub](" + e.srv.URL + "/v2/pages/" + sub + ")\n\nafter\n\n[Sub](" + e.srv.URL + "/v2/pages/" + sub + ")\n"
		wantOK(t, e.do(http.MethodPut, "/v2/pages/"+page+"/content/markdown", e.full, map[string]any{"markdown": md}), 200)
		if diff := cmp.Diff(md, e.exportMD(t, page)); diff != "" {
			t.Fatalf("markdown with a child page link (-want +got):\n%s", diff)
		}
		if got := e.kids(t, page); len(got) != 4 || got[1]["id"] != sub || got[3]["type"] != "paragraph" {
			t.Fatalf("children: %v", idsOf(got))
		}
	})
}

// TestMarkdown_RoundTrip: export, import the export, export again: the same Markdown and the
// same block tree.
func TestMarkdown_RoundTrip(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page, sub := e.richPage(t)
		// A child page between content blocks, and one at the end.
		e.appendKids(t, page, para("after the child page"))
		first0 := e.mkPage(t, e.full, pageParent(page), "Last")
		first := e.exportMD(t, page)
		if !strings.Contains(first, "[Sub]("+e.srv.URL+"/v2/pages/"+sub+")\n\nafter the child page\n") {
			t.Fatalf("unexpected export:\n%s", first)
		}
		shape := func() []any { return e.treeShape(t, page) }
		tree := shape()
		wantOK(t, e.do(http.MethodPut, "/v2/pages/"+page+"/content/markdown", e.full, map[string]any{"markdown": first}), 200)
		if diff := cmp.Diff(first, e.exportMD(t, page)); diff != "" {
			t.Fatalf("markdown after a round trip (-first +second):\n%s", diff)
		}
		if diff := cmp.Diff(tree, shape()); diff != "" {
			t.Fatalf("block tree after a round trip (-before +after):\n%s", diff)
		}
		// The child pages are the same pages, each once.
		var childPages []string
		for _, b := range e.kids(t, page) {
			if b["type"] == "child_page" {
				childPages = append(childPages, b["id"].(string))
			}
		}
		if diff := cmp.Diff([]string{sub, first0}, childPages); diff != "" {
			t.Fatalf("child pages after a round trip (-want +got):\n%s", diff)
		}
		// Importing again changes nothing either.
		wantOK(t, e.do(http.MethodPut, "/v2/pages/"+page+"/content/markdown", e.full, map[string]any{"markdown": first}), 200)
		if diff := cmp.Diff(first, e.exportMD(t, page)); diff != "" {
			t.Fatalf("markdown after a second round trip (-first +third):\n%s", diff)
		}
		// A page made from Markdown exports the same Markdown.
		made := e.mkPage(t, e.full, wsParent, "Made", map[string]any{"markdown": first})
		if diff := cmp.Diff(first, e.exportMD(t, made)); diff != "" {
			t.Fatalf("markdown of a page created from it (-want +got):\n%s", diff)
		}
	})
}

// treeShape is a page's block tree as Markdown carries it: ids, times and colours left out,
// and rich text as runs of equal marks (how a text is cut into items is not kept).
func (e *env) treeShape(t testing.TB, id string) []any {
	t.Helper()
	var out []any
	for _, b := range e.kids(t, id) {
		typ := b["type"].(string)
		content := map[string]any{}
		for k, v := range b[typ].(map[string]any) {
			switch k {
			case "text_color", "background_color":
			case "rich_text", "caption":
				content[k] = runs(v)
			case "cells":
				var cells []any
				for _, c := range v.([]any) {
					cells = append(cells, runs(c))
				}
				content[k] = cells
			default:
				content[k] = v
			}
		}
		n := map[string]any{"type": typ, typ: content}
		if b["has_children"] == true {
			n["children"] = e.treeShape(t, b["id"].(string))
		}
		out = append(out, n)
	}
	return out
}

// runs merges a rich-text array into runs of text with the marks Markdown has.
func runs(v any) []string {
	var out []string
	last := ""
	for _, it := range v.([]any) {
		it := it.(map[string]any)
		a := it["annotations"].(map[string]any)
		marks := fmt.Sprintf("%s b=%v i=%v s=%v c=%v href=%v|", it["type"], a["bold"], a["italic"], a["strikethrough"], a["code"], it["href"])
		if len(out) > 0 && marks == last {
			out[len(out)-1] += it["plain_text"].(string)
			continue
		}
		out = append(out, marks+it["plain_text"].(string))
		last = marks
	}
	return out
}
