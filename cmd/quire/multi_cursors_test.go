package main

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// listing is one paginated list: a GET with the cursor in the query, or a POST with it in the body.
type listing struct {
	name, method, path string
	body               map[string]any
}

// page reads one page of l through s.
func (c *cluster) page(t *testing.T, s *server, l listing, size int, cursor string) answer {
	if l.method == "GET" {
		q := url.Values{"page_size": {fmt.Sprint(size)}}
		if cursor != "" {
			q.Set("start_cursor", cursor)
		}
		return s.do(t, "GET", l.path+"?"+q.Encode(), c.token, nil)
	}
	b := maps.Clone(l.body)
	b["page_size"] = size
	if cursor != "" {
		b["start_cursor"] = cursor
	}
	return s.do(t, "POST", l.path, c.token, b)
}

// walk reads all of l in pages of size, taking turns among servers: each page continues from
// a cursor another server made.
func (c *cluster) walk(t *testing.T, l listing, size int, servers ...*server) []string {
	var ids []string
	cursor := ""
	for i := 0; i < 1000; i++ {
		r := c.page(t, servers[i%len(servers)], l, size, cursor)
		if r.status != 200 {
			t.Fatalf("%s page %d through %s: %d %s", l.name, i, servers[i%len(servers)].name, r.status, r.raw)
		}
		ids = append(ids, results(r.body)...)
		if dig(r.body, "has_more") != true {
			return ids
		}
		cursor = str(r.body, "next_cursor")
	}
	t.Fatalf("%s: no end after 1000 pages", l.name)
	return nil
}

// testCursors continues every kind of list on the other server. Cursors are signed with the
// store's secret, which every server on the database reads; a cursor signed with a key of its
// own process would be refused by the other.
func (c *cluster) testCursors(t *testing.T) {
	a, b, tok := c.a, c.b, c.token
	const n = 7
	parent := str(a.ok(t, "POST", "/v2/pages", tok, titleBody("", "Cursorwalk parent", seq("line", n)...)).body, "id")
	for _, title := range seq("Cursorwalk", n) { // top level, so the workspace listing has them too
		b.ok(t, "POST", "/v2/pages", tok, titleBody("", title))
	}
	db := str(b.ok(t, "POST", "/v2/databases", tok, map[string]any{"parent": map[string]any{"page_id": parent},
		"title": richText("Cursor records"), "properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}}).body, "id")
	for _, name := range seq("record", n) {
		a.ok(t, "POST", "/v2/pages", tok, map[string]any{"parent": map[string]any{"database_id": db},
			"properties": map[string]any{"Name": map[string]any{"title": richText(name)}}})
	}
	for _, l := range []listing{
		{"children", "GET", "/v2/blocks/" + parent + "/children", nil},
		{"database query", "POST", "/v2/databases/" + db + "/query", map[string]any{}},
		{"search", "POST", "/v2/search", map[string]any{"query": "Cursorwalk"}},
		{"workspace listing", "GET", "/v2/workspace/pages/team", nil},
		{"pages", "GET", "/v2/pages", nil},
		{"recent", "GET", "/v2/workspace/pages/recent", nil},
	} {
		t.Run(l.name, func(t *testing.T) {
			whole := c.walk(t, l, 100, a)
			if len(whole) < n {
				t.Fatalf("%s lists %d items, want at least %d", l.name, len(whole), n)
			}
			if got := c.walk(t, l, 2, a, b); !slices.Equal(got, whole) {
				t.Fatalf("pages of 2 through A then B: %v\nwhole through A: %v", got, whole)
			}
			if got := c.walk(t, l, 3, b, a); !slices.Equal(got, whole) {
				t.Fatalf("pages of 3 through B then A: %v\nwhole through A: %v", got, whole)
			}
		})
	}

	// B checks the signature, it does not just trust: an altered cursor of A's, or one of another
	// list, is refused at start_cursor.
	first := c.page(t, a, listing{"children", "GET", "/v2/blocks/" + parent + "/children", nil}, 2, "")
	cur := str(first.body, "next_cursor")
	flip := "A"
	if strings.HasSuffix(cur[:len(cur)-1], "A") {
		flip = "B"
	}
	altered := cur[:len(cur)-2] + flip + cur[len(cur)-1:]
	for name, r := range map[string]answer{
		"altered":         c.page(t, b, listing{"children", "GET", "/v2/blocks/" + parent + "/children", nil}, 2, altered),
		"of another list": c.page(t, b, listing{"search", "POST", "/v2/search", map[string]any{"query": "Cursorwalk"}}, 2, cur),
	} {
		if r.status != 400 || str(r.body, "details", 0, "path") != "start_cursor" {
			t.Errorf("a cursor %s through B: %d %s", name, r.status, r.raw)
		}
	}
}
