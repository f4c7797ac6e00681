package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"testing"
)

// TestCompat_ExporterWalk walks the demo workspace the way a published exporter of the original
// service does, changing nothing but the base URL: GET /v2/users/me, the workspace's sections
// (each walked further through its own route while has_more), then per node by page_type — a
// database's schema, every record through query, its views, and a query through the first view;
// a mind map's nodes[].rich_text; a page's Markdown — and GET /v2/pages?parent_id= while
// has_children. Every page, record, folder, mind map and database is met exactly once, and the
// counts agree with GET /v2/workspace.
func TestCompat_ExporterWalk(t *testing.T) {
	for name, storeFlags := range engines {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			out := &syncBuffer{}
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, append([]string{"serve", "--demo", "--addr", "127.0.0.1:0", "--log-level", "warn"}, storeFlags(t)...), out, io.Discard)
			}()
			defer func() { cancel(); <-done }()
			c := exporter{t: t, base: waitForURL(t, out, done), seen: map[string]string{}}
			c.token = regexp.MustCompile(`quire_[A-Za-z0-9_-]+`).FindString(out.String())

			if me := c.call("GET", "/v2/users/me", nil); me["object"] != "bot_user" {
				t.Fatalf("users/me = %v", me)
			}
			sections := c.call("GET", "/v2/workspace/pages?page_size=100", nil)
			for _, sec := range []string{"team", "shared", "private"} {
				l := sections[sec].(map[string]any)
				c.nodes(l["results"])
				for cur := l["next_cursor"]; cur != nil; {
					next := c.call("GET", "/v2/workspace/pages/"+sec+"?page_size=100&start_cursor="+cur.(string), nil)
					c.nodes(next["results"])
					cur = next["next_cursor"]
				}
			}
			count := map[string]int{}
			for _, kind := range c.seen {
				count[kind]++
			}
			ws := c.call("GET", "/v2/workspace", nil)
			pages := count["page"] + count["folder"] + count["mind_map"] + count["record"]
			if float64(pages) != ws["page_count"] || float64(count["database"]) != ws["database_count"] {
				t.Fatalf("walked %v (%d pages), the workspace counts %v pages and %v databases", count, pages, ws["page_count"], ws["database_count"])
			}
			if count["folder"] != 1 || count["mind_map"] != 1 || count["database"] != 1 || count["record"] < 3 || count["page"] < 2 {
				t.Fatalf("walked %v: the demo has a folder, a mind map, a database with records and pages", count)
			}
		})
	}
}

// exporter is a client written for the original service: it reads only the fields that
// service answers.
type exporter struct {
	t           *testing.T
	base, token string
	seen        map[string]string // id → what it was exported as
}

func (c *exporter) call(method, path string, body any) map[string]any {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 {
		c.t.Fatalf("%s %s: %d %v %v", method, path, res.StatusCode, err, out)
	}
	return out
}

// nodes exports each sidebar node of a list by its page_type, then what is under it.
func (c *exporter) nodes(list any) {
	c.t.Helper()
	for _, x := range list.([]any) {
		n := x.(map[string]any)
		id, _ := n["id"].(string)
		title, _ := n["title"].(string)
		if _, dup := c.seen[id]; dup || id == "" {
			c.t.Fatalf("node %v met twice", n)
		}
		switch n["page_type"] {
		case "database":
			c.seen[id] = "database"
			c.database(id)
		case "mind_map":
			c.seen[id] = "mind_map"
			mm := c.call("GET", "/v2/mind-maps/"+id, nil)
			top := mm["nodes"].([]any)
			if len(top) != 1 || len(top[0].(map[string]any)["rich_text"].([]any)) == 0 {
				c.t.Fatalf("mind map %s (%s): nodes = %v", id, title, mm["nodes"])
			}
		case "folder":
			c.seen[id] = "folder"
		case "page":
			c.seen[id] = "page"
			if _, ok := n["parent"].(map[string]any)["database_id"]; ok {
				c.seen[id] = "record"
			}
			if md := c.call("GET", "/v2/pages/"+id+"/content/markdown", nil); md["markdown"] == nil {
				c.t.Fatalf("page %s: no markdown", id)
			}
		default:
			c.t.Fatalf("node %v: page_type %v", n, n["page_type"])
		}
		if n["has_children"] == true && n["page_type"] != "database" {
			c.children(id)
		}
	}
}

// children follows GET /v2/pages?parent_id= while has_more.
func (c *exporter) children(id string) {
	c.t.Helper()
	path := "/v2/pages?page_size=100&parent_id=" + id
	for l := c.call("GET", path, nil); ; {
		c.nodes(l["results"])
		if l["has_more"] != true {
			return
		}
		l = c.call("GET", path+"&start_cursor="+l["next_cursor"].(string), nil)
	}
}

// database reads the schema, every record through query (each record is then exported as a
// page, with what is under it), the views, and the records through the first view (view_id).
func (c *exporter) database(id string) {
	c.t.Helper()
	if db := c.call("GET", "/v2/databases/"+id, nil); db["properties"] == nil {
		c.t.Fatalf("database %s: no properties", id)
	}
	var records []any
	for body := map[string]any{"page_size": 100}; ; {
		q := c.call("POST", "/v2/databases/"+id+"/query", body)
		records = append(records, q["results"].([]any)...)
		if q["has_more"] != true {
			break
		}
		body["start_cursor"] = q["next_cursor"]
	}
	views := c.call("GET", "/v2/databases/"+id+"/views", nil)["results"].([]any)
	if len(views) == 0 {
		c.t.Fatalf("database %s: no views", id)
	}
	// The first view's order, as the exporter asks for it: the records it shows, every one of
	// them a record the query answered (all of them when the view has no filter).
	first := views[0].(map[string]any)
	inView := 0
	for body := map[string]any{"page_size": 100, "view_id": first["id"]}; ; {
		q := c.call("POST", "/v2/databases/"+id+"/query", body)
		for _, r := range q["results"].([]any) {
			rid := r.(map[string]any)["id"]
			if !slices.ContainsFunc(records, func(x any) bool { return x.(map[string]any)["id"] == rid }) {
				c.t.Fatalf("database %s: view %v shows %v, which the query did not answer", id, first["id"], rid)
			}
			inView++
		}
		if q["has_more"] != true {
			break
		}
		body["start_cursor"] = q["next_cursor"]
	}
	if first["filter"] == nil && inView != len(records) {
		c.t.Fatalf("database %s: view %v without a filter shows %d records of %d", id, first["id"], inView, len(records))
	}
	// The records as the sidebar lists them: the same set the query answered.
	before := len(c.seen)
	c.children(id)
	if got := len(c.seen) - before; got < len(records) {
		c.t.Fatalf("database %s: the query answered %d records, its children %d", id, len(records), got)
	}
}
