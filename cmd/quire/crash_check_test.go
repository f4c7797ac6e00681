package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
)

// The crash test's reads after a restart, through the API as a client sees it.

// checkObjects reads back every object written since the last check (all: every object) and
// compares it with what was acknowledged, then searches for some of them.
func (h *harness) checkObjects(base string, all bool) {
	h.t.Helper()
	c := newClient(base, h.token)
	defer c.close()
	var checked []*object
	for _, w := range h.writers {
		for _, o := range w.objs {
			if !all && !o.dirty {
				continue
			}
			cut, err := checkObject(c, o)
			if err != nil {
				h.t.Errorf("after restart: %v", err)
				h.lost++
				continue
			}
			h.cutFound[cut]++
			o.dirty = false
			checked = append(checked, o)
		}
		// A trash cut off by the kill may have committed: such an object takes no more writes.
		for k, l := range w.live {
			w.live[k] = slices.DeleteFunc(l, func(o *object) bool { return o.trashed })
		}
	}
	h.checks += len(checked)
	if h.lost > 0 {
		h.t.Fatalf("%d acknowledged objects lost or changed after the restart", h.lost)
	}
	h.checkSearch(c, checked)
	if h.t.Failed() {
		h.t.FailNow()
	}
}

func checkObject(c *client, o *object) (inFlight, error) {
	if o.kind == kindFile {
		return noWriteInFlight, checkFile(c, o)
	}
	r, err := c.call("GET", o.path(), nil, "")
	if err != nil {
		return 0, err
	}
	cut, err := o.check(r)
	if err != nil || o.blocks == nil {
		return cut, err
	}
	got, err := listChildren(c, o.id)
	if err != nil {
		return 0, err
	}
	if cutBlocks, err := o.blocks.check(o.id, got); err != nil || cutBlocks != noWriteInFlight {
		return cutBlocks, err
	}
	return cut, nil
}

// checkFile downloads an acknowledged upload: its bytes were synced and renamed into place
// before the upload was marked done in the store, and that before the answer.
func checkFile(c *client, o *object) error {
	r, err := c.call("GET", "/v2/files/download-url?file_id="+o.id, nil, "")
	if err != nil {
		return err
	}
	req, err := http.NewRequest("GET", fmt.Sprint(r.obj["url"]), nil)
	if err != nil {
		return err
	}
	f, err := c.send(req)
	if err != nil {
		return err
	}
	if !bytes.Equal(f.raw, o.data) {
		return fmt.Errorf("file %s reads %d bytes, not the %d bytes acknowledged", o.id, len(f.raw), len(o.data))
	}
	return nil
}

func listChildren(c *client, id string) ([]map[string]any, error) {
	var out []map[string]any
	cursor := ""
	for {
		path := "/v2/blocks/" + id + "/children?page_size=100"
		if cursor != "" {
			path += "&start_cursor=" + url.QueryEscape(cursor)
		}
		r, err := c.call("GET", path, nil, "")
		if err != nil {
			return nil, err
		}
		results, _ := r.obj["results"].([]any)
		for _, x := range results {
			b, _ := x.(map[string]any)
			out = append(out, b)
		}
		if r.obj["has_more"] != true {
			return out, nil
		}
		cursor, _ = r.obj["next_cursor"].(string)
	}
}

var wordRE = regexp.MustCompile(`qz[0-9a-f]{12}`)

// words are the unique words an object holds now: its title's and its content's.
func (o *object) words() []string {
	s := stateOf(o.kind, o.acked)
	text := s.title + " " + s.tree
	if o.blocks != nil {
		for _, b := range o.blocks.want {
			text += " " + b.text + " " + plain(dig(b.full, "paragraph", "rich_text"))
		}
	}
	return wordRE.FindAllString(text, -1)
}

// checkSearch searches for a unique word of some checked objects: the keyword index is kept
// by triggers in each write's transaction, so it must agree with what was read back. A live
// object is found; one in trash is not. A record is also found by a database query on its
// values, which are indexed in their own table.
func (h *harness) checkSearch(c *client, objs []*object) {
	h.t.Helper()
	for _, i := range h.rng.Perm(len(objs))[:min(8, len(objs))] {
		o := objs[i]
		words := o.words()
		if len(words) == 0 {
			continue
		}
		word := words[h.rng.IntN(len(words))]
		r, err := c.call("POST", "/v2/search", map[string]any{"query": word, "page_size": 10}, "")
		if err != nil {
			h.t.Errorf("search %q: %v", word, err)
			continue
		}
		h.searches++
		found := slices.Contains(resultIDs(r), o.id)
		if found == o.trashed {
			h.t.Errorf("after restart: search for %q (in %s, in_trash %v) found it: %v", word, o.path(), o.trashed, found)
		}
		if o.kind == kindRecord && !o.trashed {
			h.checkQuery(c, o)
		}
	}
}

func (h *harness) checkQuery(c *client, o *object) {
	h.t.Helper()
	s := stateOf(kindRecord, o.acked)
	r, err := c.call("POST", "/v2/databases/"+o.db.id+"/query", map[string]any{"filter": map[string]any{"and": []any{
		map[string]any{"property": "Name", "title": map[string]any{"equals": s.title}},
		map[string]any{"property": "Points", "number": map[string]any{"equals": s.points}},
		map[string]any{"property": "Status", "select": map[string]any{"equals": s.status}},
	}}}, "")
	if err != nil {
		h.t.Errorf("query: %v", err)
		return
	}
	if ids := resultIDs(r); !slices.Equal(ids, []string{o.id}) {
		h.t.Errorf("after restart: the query for record %s's values %+v found %v", o.id, s, ids)
	}
}

// checkSemantic asks semantic search for a page's unique title word once the indexer has
// embedded it: the embedding queue survived the kills and its work completed.
func (h *harness) checkSemantic(base string) {
	h.t.Helper()
	c := newClient(base, h.token)
	defer c.close()
	var pages []*object
	for _, w := range h.writers {
		for _, o := range w.live[kindPage] {
			if !h.leased[o.id] {
				pages = append(pages, o)
			}
		}
	}
	for _, i := range h.rng.Perm(len(pages))[:min(3, len(pages))] {
		o := pages[i]
		word := stateOf(kindPage, o.acked).title[len("Page "):]
		r, err := c.call("POST", "/v2/search/semantic", map[string]any{"query": word, "page_size": 5}, "")
		if err != nil {
			h.t.Errorf("semantic search: %v", err)
			continue
		}
		var pages []string // the fragments' pages
		results, _ := r.obj["results"].([]any)
		for _, x := range results {
			pages = append(pages, fmt.Sprint(dig(x, "page_id")))
		}
		if !slices.Contains(pages, o.id) {
			h.t.Errorf("after restart: semantic search for %q did not find %s: %s", word, o.id, r.raw)
		}
	}
}

func resultIDs(r *reply) []string {
	var ids []string
	results, _ := r.obj["results"].([]any)
	for _, x := range results {
		ids = append(ids, fmt.Sprint(dig(x, "id")))
	}
	return ids
}
