package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// Block writes as the original service's clients send them (issue 14): children beside type,
// text_align and caption_align, audio blocks, unsupported_block_type, limit and actual.

// besideType is a block with its children beside type, as the original service's docs write it.
func besideType(typ string, content map[string]any, children ...any) map[string]any {
	b := blk(typ, content)
	b["children"] = children
	return b
}

func richOf(s string) map[string]any { return map[string]any{"rich_text": []any{txt(s)}} }

// plainTexts reads the first plain_text of each block's type object.
func plainTexts(bs []map[string]any) []string {
	var out []string
	for _, b := range bs {
		rt, _ := b[b["type"].(string)].(map[string]any)["rich_text"].([]any)
		if len(rt) > 0 {
			out = append(out, rt[0].(map[string]any)["plain_text"].(string))
		}
	}
	return out
}

func TestCompat_ChildrenBesideType(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		// Page create and append both take them, nested two levels, mixed with today's shape.
		r := e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": wsParent, "properties": titleOf("Beside"),
			"children": []any{besideType("toggle", richOf("t"), besideType("quote", richOf("q"), para("p")), para("inside", para("deep")))}})
		wantOK(t, r, 200)
		page := r.body["id"].(string)
		top := e.kids(t, page)
		if len(top) != 1 || top[0]["has_children"] != true {
			t.Fatalf("page content = %v", top)
		}
		second := e.kids(t, top[0]["id"].(string))
		if diff := cmp.Diff([]string{"q", "inside"}, plainTexts(second)); diff != "" {
			t.Fatalf("toggle's children (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"p"}, plainTexts(e.kids(t, second[0]["id"].(string)))); diff != "" {
			t.Fatalf("quote's children (-want +got):\n%s", diff)
		}
		added := e.appendKids(t, page, besideType("bulleted_list_item", richOf("b"), para("b1"), para("b2")))
		if diff := cmp.Diff([]string{"b1", "b2"}, plainTexts(e.kids(t, added[0]["id"].(string)))); diff != "" {
			t.Fatalf("appended item's children (-want +got):\n%s", diff)
		}
		// Errors name the place the children were sent; nothing is written.
		before := e.kidIDs(t, page)
		both := blk("toggle", map[string]any{"rich_text": []any{}, "children": []any{para("a")}})
		both["children"] = []any{para("b")}
		for _, tc := range []struct {
			name         string
			child        any
			path, reason string
		}{
			{"both places", both, "children[0].children", quire.ReasonInvalidValue},
			{"a problem below", besideType("toggle", richOf("t"), besideType("toggle", richOf("u"), blk("quote", map[string]any{}))),
				"children[0].children[0].children[0].quote.rich_text", quire.ReasonRequired},
			{"a third level", besideType("toggle", richOf("t"), besideType("toggle", richOf("u"), besideType("toggle", richOf("v"), para("w")))),
				"children[0].children[0].children[0].children", quire.ReasonInvalidValue},
			{"an unknown upload below", besideType("toggle", richOf("t"), blk("image", map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": quire.NewID()}})),
				"children[0].children[0].image.file_upload.id", quire.ReasonInvalidValue},
			{"a type without children", besideType("divider", map[string]any{}, para("x")), "children[0].children", quire.ReasonInvalidValue},
			{"not an array", map[string]any{"type": "toggle", "toggle": richOf("t"), "children": "x"}, "children[0].children", quire.ReasonInvalidType},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{tc.child}})
				wantDetail(t, r, 400, quire.CodeValidation, tc.path, tc.reason)
				if diff := cmp.Diff(before, e.kidIDs(t, page)); diff != "" {
					t.Fatalf("a refused append wrote (-before +after):\n%s", diff)
				}
			})
		}
	})
}

func TestCompat_Alignment(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Aligned")
		img := map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/a.png"},
			"caption": []any{txt("cap")}, "caption_align": "center", "text_align": "right"}
		kids := e.appendKids(t, page, blk("paragraph", map[string]any{"rich_text": []any{txt("c")}, "text_align": "center"}),
			blk("image", img), para("plain"))
		p, im, plain := kids[0], kids[1], kids[2]
		// Read back where they were written, and only when set.
		if got := p["paragraph"].(map[string]any)["text_align"]; got != "center" {
			t.Fatalf("paragraph text_align = %v", got)
		}
		got := e.do(http.MethodGet, "/v2/blocks/"+im["id"].(string), e.full, nil)
		wantOK(t, got, 200)
		body := got.body["image"].(map[string]any)
		if body["caption_align"] != "center" || body["text_align"] != "right" {
			t.Fatalf("image = %v", body)
		}
		if _, set := plain["paragraph"].(map[string]any)["text_align"]; set {
			t.Fatalf("a paragraph without text_align reads one: %v", plain)
		}
		// PATCH changes one, null clears it, the other stays.
		r := e.do(http.MethodPatch, "/v2/blocks/"+im["id"].(string), e.full, map[string]any{"image": map[string]any{"caption_align": nil, "text_align": "left"}})
		wantOK(t, r, 200)
		body = r.body["image"].(map[string]any)
		if _, set := body["caption_align"]; set || body["text_align"] != "left" {
			t.Fatalf("patched image = %v", body)
		}
		wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+p["id"].(string), e.full, map[string]any{"paragraph": map[string]any{"text_align": "justify"}}),
			400, quire.CodeValidation, "paragraph.text_align", quire.ReasonInvalidValue)
		wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{
			para("ok"), blk("video", map[string]any{"external": map[string]any{"url": "https://example.com/v"}, "caption_align": "top"})}}),
			400, quire.CodeValidation, "children[1].video.caption_align", quire.ReasonInvalidValue)
		wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{
			blk("quote", map[string]any{"rich_text": []any{}, "caption_align": "left"})}}),
			400, quire.CodeValidation, "children[0].quote.caption_align", quire.ReasonUnknownField)
		// Markdown has no alignment: the export is that of the unaligned blocks.
		if md := e.exportMD(t, page); strings.Contains(md, "align") || !strings.HasPrefix(md, "c\n\n![cap](https://example.com/a.png)\n") {
			t.Fatalf("markdown = %q", md)
		}
	})
}

func TestCompat_Audio(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Sounds")
		kids := e.appendKids(t, page, blk("audio", map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/talk.mp3"},
			"caption": []any{txt("Keynote xylophonic recording")}}))
		want := map[string]any{"caption": []any{txtOut("Keynote xylophonic recording")}, "type": "external",
			"external": map[string]any{"url": "https://example.com/talk.mp3"}}
		if diff := cmp.Diff(want, kids[0]["audio"]); diff != "" {
			t.Fatalf("audio (-want +got):\n%s", diff)
		}
		if kids[0]["type"] != "audio" {
			t.Fatalf("type = %v", kids[0]["type"])
		}
		// Markdown: a link titled audio, which reads back as the same block.
		md := e.exportMD(t, page)
		if md != "[Keynote xylophonic recording](https://example.com/talk.mp3 \"audio\")\n" {
			t.Fatalf("markdown = %q", md)
		}
		wantOK(t, e.do(http.MethodPut, "/v2/pages/"+page+"/content/markdown", e.full, map[string]any{"markdown": md}), 200)
		again := e.kids(t, page)
		if len(again) != 1 || again[0]["type"] != "audio" || cmp.Diff(want, again[0]["audio"]) != "" {
			t.Fatalf("after a Markdown round trip: %v", again)
		}
		// Its caption is searchable text.
		if ids := e.searchIDs(t, e.full, map[string]any{"query": "xylophonic"}); len(ids) != 1 || ids[0] != page {
			t.Fatalf("search for the caption = %v, want the page", ids)
		}
		wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{blk("audio", map[string]any{})}}),
			400, quire.CodeValidation, "children[0].audio.external", quire.ReasonRequired)
	})
}

func TestCompat_UnsupportedBlockType(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Types")
		for _, tc := range []struct {
			name, method, path string
			body               map[string]any
			code, at           string
		}{
			{"unknown type", http.MethodPatch, "/v2/blocks/" + page + "/children",
				map[string]any{"children": []any{blk("kanban", map[string]any{})}}, quire.CodeUnsupportedBlockType, "children[0].type"},
			{"read-only type", http.MethodPatch, "/v2/blocks/" + page + "/children",
				map[string]any{"children": []any{blk("child_page", map[string]any{"title": "x"})}}, quire.CodeUnsupportedBlockType, "children[0].type"},
			{"nested in a page create", http.MethodPost, "/v2/pages",
				map[string]any{"parent": wsParent, "children": []any{besideType("toggle", richOf("t"), blk("child_database", map[string]any{}))}},
				quire.CodeUnsupportedBlockType, "children[0].children[0].type"},
			{"after a plain validation problem", http.MethodPatch, "/v2/blocks/" + page + "/children",
				map[string]any{"children": []any{blk("quote", map[string]any{}), blk("kanban", map[string]any{})}}, quire.CodeValidation, "children[1].type"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantDetail(t, e.do(tc.method, tc.path, e.full, tc.body), 400, tc.code, tc.at, quire.ReasonInvalidValue)
			})
		}
		if n := len(e.kids(t, page)); n != 0 {
			t.Fatalf("refused writes left %d blocks", n)
		}
	})
}

// TestCompat_LimitAndActual: a detail beyond a limit says the limit and what it found.
func TestCompat_LimitAndActual(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Limits")
		tooMany := make([]any, 101)
		for i := range tooMany {
			tooMany[i] = para("x")
		}
		long := strings.Repeat("é", 2001)
		_, db := e.newDatabase(t, taskSchema())
		deepMap := e.mkMindMap(t, e.full, map[string]any{"parent": pageParent(page), "title": "Deep", "root": chain(100)})
		deepest := nodeIDs(rootOf(deepMap))["d100"]
		for _, tc := range []struct {
			name, method, path string
			body               any
			at, reason         string
			limit, actual      float64
			headers            []string
		}{
			{"children", http.MethodPatch, "/v2/blocks/" + page + "/children", map[string]any{"children": tooMany},
				"children", quire.ReasonTooMany, 100, 101, nil},
			{"text content", http.MethodPatch, "/v2/blocks/" + page + "/children", map[string]any{"children": []any{para(long)}},
				"children[0].paragraph.rich_text[0].text.content", quire.ReasonTooLong, 2000, 2001, nil},
			{"table width", http.MethodPost, "/v2/pages", map[string]any{"parent": wsParent, "children": []any{
				besideType("table", map[string]any{"table_width": 101}, blk("table_row", map[string]any{"cells": []any{}}))}},
				"children[0].table.table_width", quire.ReasonOutOfRange, 100, 101, nil},
			{"mind map title", http.MethodPost, "/v2/mind-maps", map[string]any{"parent": pageParent(page), "title": long},
				"title", quire.ReasonTooLong, 2000, 2001, nil},
			{"mind map depth", http.MethodPatch, "/v2/mind-maps/" + deepMap.body["id"].(string), map[string]any{"edits": []any{
				map[string]any{"op": "add", "parent_id": deepest, "node": mmNode("x", mmNode("y"))}}},
				"edits[0].node", quire.ReasonOutOfRange, 100, 102, nil},
			{"mutations", http.MethodPost, "/v2/databases/" + db["id"].(string) + "/mutations", map[string]any{"mutations": make([]any, 101)},
				"mutations", quire.ReasonTooMany, 100, 101, nil},
			{"view name", http.MethodPost, viewsPath(db["id"].(string)), map[string]any{"type": "table", "name": strings.Repeat("v", 201)},
				"name", quire.ReasonTooLong, 200, 201, nil},
			{"page_size parameter, low", http.MethodGet, "/v2/users?page_size=0", nil, "page_size", quire.ReasonOutOfRange, 1, 0, nil},
			{"page_size parameter, high", http.MethodGet, "/v2/blocks/" + page + "/children?page_size=101", nil, "page_size", quire.ReasonOutOfRange, 100, 101, nil},
			{"page_size of a search", http.MethodPost, "/v2/search", map[string]any{"query": "x", "page_size": 101}, "page_size", quire.ReasonOutOfRange, 100, 101, nil},
			{"page_size of a query", http.MethodPost, "/v2/databases/" + db["id"].(string) + "/query", map[string]any{"page_size": 0}, "page_size", quire.ReasonOutOfRange, 1, 0, nil},
			{"search query", http.MethodPost, "/v2/search", map[string]any{"query": strings.Repeat("é", 1001)}, "query", quire.ReasonTooLong, 1000, 1001, nil},
			{"search terms", http.MethodPost, "/v2/search", map[string]any{"query": distinctWords(21)}, "query", quire.ReasonTooMany, 20, 21, nil},
			{"semantic query", http.MethodPost, "/v2/search/semantic", map[string]any{"query": strings.Repeat("é", 1001)}, "query", quire.ReasonTooLong, 1000, 1001, nil},
			{"file name", http.MethodPost, "/v2/files/upload-url", map[string]any{"filename": strings.Repeat("n", 256), "content_type": "text/plain"},
				"filename", quire.ReasonTooLong, 255, 256, nil},
			{"Idempotency-Key", http.MethodPatch, "/v2/blocks/" + page + "/children", map[string]any{"children": []any{para("x")}},
				"Idempotency-Key", quire.ReasonTooLong, 255, 256, []string{"Idempotency-Key", strings.Repeat("k", 256)}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(tc.method, tc.path, e.full, tc.body, tc.headers...)
				wantDetail(t, r, 400, quire.CodeValidation, tc.at, tc.reason)
				for _, d := range objects(r.body["details"]) {
					if d["path"] == tc.at && (d["limit"] != tc.limit || d["actual"] != tc.actual) {
						t.Fatalf("detail %v, want limit %v and actual %v", d, tc.limit, tc.actual)
					}
				}
			})
		}
	})
}

// distinctWords is a query of n different words.
func distinctWords(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = "word" + strconv.Itoa(i)
	}
	return strings.Join(words, " ")
}
