package main

import (
	"fmt"
)

// The writer's database, mind-map and file writes.

var statuses = []string{"todo", "doing", "done"}

func (w *writer) createDatabase() error {
	w.home.exact = false // a new child changes the parent's version
	opts := []any{}
	for _, s := range statuses {
		opts = append(opts, map[string]any{"name": s})
	}
	r, err := w.c.call("POST", "/v2/databases", map[string]any{
		"parent": map[string]any{"page_id": w.home.id},
		"title":  rich("Tasks " + w.word()),
		"properties": map[string]any{
			"Name":   map[string]any{"title": map[string]any{}},
			"Points": map[string]any{"number": map[string]any{}},
			"Status": map[string]any{"select": map[string]any{"options": opts}},
		}}, "")
	if err != nil {
		return err
	}
	w.db = w.made(kindDatabase, r, r.etag)
	return w.counted()
}

func (w *writer) recordProps(name string, points int, status string) map[string]any {
	return map[string]any{
		"Name":   map[string]any{"title": rich(name)},
		"Points": map[string]any{"number": points},
		"Status": map[string]any{"select": map[string]any{"name": status}},
	}
}

func (w *writer) randomProps() (map[string]any, state) {
	s := state{title: "Task " + w.word(), points: float64(w.rng.IntN(1000)), status: statuses[w.rng.IntN(len(statuses))]}
	return w.recordProps(s.title, int(s.points), s.status), s
}

func (w *writer) createRecord() error {
	w.db.exact = false
	props, want := w.randomProps()
	r, err := w.c.call("POST", "/v2/pages", map[string]any{"parent": map[string]any{"database_id": w.db.id}, "properties": props}, "")
	if err != nil {
		return err
	}
	if got := stateOf(kindRecord, r.obj); got != want {
		return fmt.Errorf("POST /v2/pages (record) answered %+v, sent %+v", got, want)
	}
	w.made(kindRecord, r, r.etag).db = w.db
	return w.counted()
}

// createRecords creates a few records in one atomic mutations request.
func (w *writer) createRecords() error {
	w.db.exact = false
	var ops []any
	var wants []state
	for range 2 + w.rng.IntN(3) {
		props, want := w.randomProps()
		ops = append(ops, map[string]any{"op": "create", "properties": props})
		wants = append(wants, want)
	}
	r, err := w.c.call("POST", "/v2/databases/"+w.db.id+"/mutations", map[string]any{"mutations": ops}, "")
	if err != nil {
		return err
	}
	results, _ := r.obj["results"].([]any)
	if len(results) != len(ops) {
		return fmt.Errorf("mutations answered %d records, sent %d creates", len(results), len(ops))
	}
	for i, res := range results {
		obj, _ := res.(map[string]any)
		if got := stateOf(kindRecord, obj); got != wants[i] {
			return fmt.Errorf("mutations answered record %d %+v, sent %+v", i, got, wants[i])
		}
		w.made(kindRecord, &reply{obj: obj}, "").db = w.db
	}
	return w.counted()
}

func (w *writer) updateRecord(rec *object) error {
	alt := stateOf(kindRecord, rec.acked)
	alt.points, alt.status = float64(w.rng.IntN(1000)), statuses[w.rng.IntN(len(statuses))]
	rec.alt, rec.dirty, rec.db.exact = &alt, true, false
	r, err := w.c.call("POST", "/v2/databases/"+rec.db.id+"/mutations", map[string]any{"mutations": []any{map[string]any{
		"op": "update", "page_id": rec.id, "properties": w.recordProps(alt.title, int(alt.points), alt.status)}}}, "")
	if err != nil {
		return err
	}
	results, _ := r.obj["results"].([]any)
	var obj map[string]any
	if len(results) == 1 {
		obj, _ = results[0].(map[string]any)
	}
	if got := stateOf(kindRecord, obj); got != alt {
		return fmt.Errorf("mutations update answered %+v, want %+v", got, alt)
	}
	rec.ack(&reply{obj: obj}, "") // the list carries no ETag
	return w.counted()
}

func (w *writer) createMindMap() error {
	w.home.exact = false
	r, err := w.c.call("POST", "/v2/mind-maps", map[string]any{
		"parent": map[string]any{"page_id": w.home.id},
		"title":  "Map " + w.word(),
		"root":   map[string]any{"text": "Root " + w.word(), "children": []any{map[string]any{"text": "Idea " + w.word()}}},
	}, "")
	if err != nil {
		return err
	}
	w.made(kindMindMap, r, r.etag)
	return w.counted()
}

// editMindMap adds a node under a random node and renames another, with If-Match.
func (w *writer) editMindMap(m *object) error {
	if m.etag == "" {
		if err := w.refresh(m); err != nil {
			return err
		}
	}
	tree := parseNode(m.acked["root"])
	nodes := tree.all()
	if len(nodes) > 150 {
		return w.createMindMap()
	}
	parent, renamed := nodes[w.rng.IntN(len(nodes))], nodes[w.rng.IntN(len(nodes))]
	added := &mmNode{id: w.uuid(), text: "Idea " + w.word()}
	renamed.text = "Renamed " + w.word()
	parent.kids = append(parent.kids, added)
	alt := stateOf(kindMindMap, m.acked)
	alt.tree = tree.String()
	m.alt, m.dirty = &alt, true
	r, err := w.c.call("PATCH", m.path(), map[string]any{"edits": []any{
		map[string]any{"op": "add", "parent_id": parent.id, "node": map[string]any{"id": added.id, "text": added.text}},
		map[string]any{"op": "update", "node_id": renamed.id, "text": renamed.text},
	}}, m.etag)
	if err != nil {
		return err
	}
	m.ack(r, r.etag)
	if got := stateOf(kindMindMap, r.obj); got != alt {
		return fmt.Errorf("PATCH %s answered %+v, want %+v", m.path(), got, alt)
	}
	return w.counted()
}

// uploadFile uploads random bytes through a signed URL.
func (w *writer) uploadFile() error {
	data := make([]byte, 1+w.rng.IntN(64<<10))
	for i := range data {
		data[i] = byte(w.rng.Uint32())
	}
	r, err := w.c.call("POST", "/v2/files/upload-url", map[string]any{
		"filename": "crash-" + w.word() + ".bin", "content_type": "application/octet-stream", "size": len(data)}, "")
	if err != nil {
		return err
	}
	up, err := w.c.upload(fmt.Sprint(r.obj["upload_url"]), data)
	if err != nil {
		return err
	}
	if up.obj["status"] != "uploaded" || up.obj["id"] != r.obj["id"] {
		return fmt.Errorf("upload answered %s", up.raw)
	}
	w.made(kindFile, up, "").data = data
	return w.counted()
}
