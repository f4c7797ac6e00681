package main

import (
	"slices"
	"testing"
)

// blockTexts returns the plain text of each block of a children listing.
func blockTexts(body map[string]any) []string {
	var out []string
	for _, b := range dig(body, "results").([]any) {
		typ := str(b, "type")
		out = append(out, str(b, typ, "rich_text", 0, "plain_text")+str(b, typ, "title"))
	}
	return out
}

func pageTitle(body map[string]any) string {
	return str(body, "properties", "title", "title", 0, "plain_text")
}

// testFreshReads writes through one server and reads through the other at once: nothing a
// process keeps may be older than the database.
func (c *cluster) testFreshReads(t *testing.T) {
	a, b, tok := c.a, c.b, c.token

	// A page and its blocks, written through both, read through both.
	pg := a.ok(t, "POST", "/v2/pages", tok, titleBody("", "Fresh page", "first"))
	id := str(pg.body, "id")
	got := b.ok(t, "GET", "/v2/pages/"+id, tok, nil)
	if pageTitle(got.body) != "Fresh page" || got.header.Get("ETag") != pg.header.Get("ETag") {
		t.Fatalf("B reads %q %s, A wrote %q %s", pageTitle(got.body), got.header.Get("ETag"), "Fresh page", pg.header.Get("ETag"))
	}
	a.ok(t, "PATCH", "/v2/blocks/"+id+"/children", tok, map[string]any{"children": paragraphBlocks("second")})
	b.ok(t, "PATCH", "/v2/blocks/"+id+"/children", tok, map[string]any{"children": paragraphBlocks("third")})
	for _, s := range []*server{a, b} {
		if got := blockTexts(s.ok(t, "GET", "/v2/blocks/"+id+"/children", tok, nil).body); !slices.Equal(got, []string{"first", "second", "third"}) {
			t.Fatalf("blocks read through %s: %q", s.name, got)
		}
	}

	// A title changed through B is A's at once, with B's version.
	patched := b.ok(t, "PATCH", "/v2/pages/"+id, tok, map[string]any{"properties": map[string]any{"title": richText("Renamed")}})
	got = a.ok(t, "GET", "/v2/pages/"+id, tok, nil)
	if pageTitle(got.body) != "Renamed" || got.header.Get("ETag") != patched.header.Get("ETag") || got.header.Get("ETag") == pg.header.Get("ETag") {
		t.Fatalf("A reads %q %s after B renamed it (%s)", pageTitle(got.body), got.header.Get("ETag"), patched.header.Get("ETag"))
	}
	// Keyword search through either finds the new title and not the old one.
	for _, s := range []*server{a, b} {
		if ids := results(s.ok(t, "POST", "/v2/search", tok, map[string]any{"query": "Renamed"}).body); !slices.Equal(ids, []string{id}) {
			t.Fatalf("search through %s for the new title: %v", s.name, ids)
		}
		if ids := results(s.ok(t, "POST", "/v2/search", tok, map[string]any{"query": "Fresh page"}).body); len(ids) != 0 {
			t.Fatalf("search through %s for the old title: %v", s.name, ids)
		}
	}

	// A database: created through A, records through both, queried through both.
	db := a.ok(t, "POST", "/v2/databases", tok, map[string]any{"parent": map[string]any{"page_id": id},
		"title": richText("Tasks"), "properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}})
	dbID := str(db.body, "id")
	record := func(s *server, name string) string {
		return str(s.ok(t, "POST", "/v2/pages", tok, map[string]any{"parent": map[string]any{"database_id": dbID},
			"properties": map[string]any{"Name": map[string]any{"title": richText(name)}}}).body, "id")
	}
	r1 := record(b, "made through B")
	if got := results(a.ok(t, "POST", "/v2/databases/"+dbID+"/query", tok, map[string]any{}).body); !slices.Equal(got, []string{r1}) {
		t.Fatalf("query through A: %v, want the record made through B %s", got, r1)
	}
	r2 := record(a, "made through A")
	if got := results(b.ok(t, "POST", "/v2/databases/"+dbID+"/query", tok, map[string]any{}).body); len(got) != 2 || !slices.Contains(got, r1) || !slices.Contains(got, r2) {
		t.Fatalf("query through B: %v, want %s and %s", got, r1, r2)
	}

	// Trash through A hides the page from B's search at once and shows it in B's trash; a restore
	// through B is A's at once.
	a.ok(t, "PATCH", "/v2/pages/"+id, tok, map[string]any{"in_trash": true})
	if got := b.ok(t, "GET", "/v2/pages/"+id, tok, nil); dig(got.body, "in_trash") != true {
		t.Fatalf("B reads in_trash %v after A trashed it", dig(got.body, "in_trash"))
	}
	if ids := results(b.ok(t, "POST", "/v2/search", tok, map[string]any{"query": "Renamed"}).body); len(ids) != 0 {
		t.Fatalf("B's search finds the trashed page: %v", ids)
	}
	if ids := results(b.ok(t, "GET", "/v2/workspace/pages/trash", tok, nil).body); !slices.Contains(ids, id) {
		t.Fatalf("B's trash listing %v lacks %s", ids, id)
	}
	b.ok(t, "PATCH", "/v2/pages/"+id, tok, map[string]any{"in_trash": false})
	if got := a.ok(t, "GET", "/v2/pages/"+id, tok, nil); dig(got.body, "in_trash") != false {
		t.Fatalf("A reads in_trash %v after B restored it", dig(got.body, "in_trash"))
	}
	if ids := results(a.ok(t, "POST", "/v2/search", tok, map[string]any{"query": "Renamed"}).body); !slices.Equal(ids, []string{id}) {
		t.Fatalf("A's search after B restored the page: %v", ids)
	}
}

// mindMapTexts lists a mind map's node texts, depth first.
func mindMapTexts(body map[string]any) []string {
	var out []string
	var walk func(n any)
	walk = func(n any) {
		out = append(out, str(n, "text"))
		kids, _ := dig(n, "children").([]any)
		for _, k := range kids {
			walk(k)
		}
	}
	walk(dig(body, "root"))
	return out
}

// testMindMaps edits one map through both servers. Each keeps the trees of maps it served in
// memory under the map's version; an edit made elsewhere must make that a miss, for reads and
// for edits alike.
func (c *cluster) testMindMaps(t *testing.T) {
	a, b, tok := c.a, c.b, c.token
	home := str(a.ok(t, "POST", "/v2/pages", tok, titleBody("", "Maps")).body, "id")
	mm := a.ok(t, "POST", "/v2/mind-maps", tok, map[string]any{"parent": map[string]any{"page_id": home}, "title": "Plan",
		"root": map[string]any{"text": "Plan", "children": []any{map[string]any{"text": "one"}}}})
	id, root := str(mm.body, "id"), str(mm.body, "root", "id")
	add := func(s *server, text string) answer {
		return s.ok(t, "PATCH", "/v2/mind-maps/"+id, tok, map[string]any{"edits": []any{
			map[string]any{"op": "add", "parent_id": root, "node": map[string]any{"text": text}}}})
	}
	b.ok(t, "GET", "/v2/mind-maps/"+id, tok, nil) // B now holds the tree at the first version
	add(a, "two")
	if got := mindMapTexts(b.ok(t, "GET", "/v2/mind-maps/"+id, tok, nil).body); !slices.Equal(got, []string{"Plan", "one", "two"}) {
		t.Fatalf("B reads %q after A's edit", got)
	}
	add(a, "three") // B's tree is one version behind when it edits next
	if got := mindMapTexts(add(b, "four").body); !slices.Equal(got, []string{"Plan", "one", "two", "three", "four"}) {
		t.Fatalf("B's edit answers %q", got)
	}
	got := a.ok(t, "GET", "/v2/mind-maps/"+id, tok, nil)
	if texts := mindMapTexts(got.body); !slices.Equal(texts, []string{"Plan", "one", "two", "three", "four"}) || dig(got.body, "node_count") != 5.0 {
		t.Fatalf("A reads %q (node_count %v) after B's edit", texts, dig(got.body, "node_count"))
	}
}
