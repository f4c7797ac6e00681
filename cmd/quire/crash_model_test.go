package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// kind is the kind of an object a crash-test writer made.
type kind int

const (
	kindPage kind = iota
	kindRecord
	kindDatabase
	kindMindMap
	kindFile // an upload: its bytes are known, its answer has nothing else to compare
)

// object is what the writers know of one object they own: its last acknowledged answer, and
// what it may have become through a write whose answer never came (the kill cut it off).
type object struct {
	kind  kind
	id    string
	db    *object        // a record's database
	acked map[string]any // the last acknowledged representation, without url (the port changes)
	etag  string         // the ETag of acked; "" when the answer carried none
	exact bool           // nothing changed the object since acked: it must read back equal
	alt   *state         // its state if the write in flight at the kill committed
	// A page's content, nil for pages whose blocks are not followed (a writer's home).
	blocks  *blockList
	data    []byte // a file's bytes
	trashed bool
	dirty   bool // written (or written to) since the last check
}

// state is what a write changes: acked reads back with this state, or with alt.
type state struct {
	title  string
	trash  bool
	points float64
	status string
	tree   string // a mind map's nodes, a database's schema
}

func (o *object) path() string {
	switch o.kind {
	case kindDatabase:
		return "/v2/databases/" + o.id
	case kindMindMap:
		return "/v2/mind-maps/" + o.id
	}
	return "/v2/pages/" + o.id
}

// ack records an acknowledged answer as the object's representation.
func (o *object) ack(r *reply, etag string) {
	o.acked, o.etag, o.exact, o.alt = withoutURL(r.obj), etag, true, nil
	o.trashed = o.acked["in_trash"] == true
}

func withoutURL(obj map[string]any) map[string]any {
	c := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "url" {
			c[k] = v
		}
	}
	return c
}

// inFlight tells what became of a write whose answer the kill cut off.
type inFlight int

const (
	noWriteInFlight inFlight = iota
	cutApplied
	cutNotApplied
)

// check compares what the restarted server answers with what was acknowledged, and then
// takes the answer as the object's known representation.
func (o *object) check(r *reply) (inFlight, error) {
	got := withoutURL(r.obj)
	switch {
	case o.exact && o.alt == nil:
		if d := cmp.Diff(o.acked, got); d != "" {
			return 0, fmt.Errorf("%s differs from its acknowledged answer (-acked +read):\n%s", o.path(), d)
		}
		if o.etag != "" && r.etag != o.etag {
			return 0, fmt.Errorf("%s: ETag %s, acknowledged %s", o.path(), r.etag, o.etag)
		}
	default:
		// Some other write changed the version (an append, a child): what no write changes
		// must still read back as acknowledged, and the version never goes back.
		for _, k := range []string{"object", "id", "created_time", "created_by", "parent"} {
			if d := cmp.Diff(o.acked[k], got[k]); d != "" {
				return 0, fmt.Errorf("%s: %s differs from its acknowledged answer (-acked +read):\n%s", o.path(), k, d)
			}
		}
		if etagVersion(r.etag) < etagVersion(o.etag) {
			return 0, fmt.Errorf("%s: ETag %s is older than the acknowledged %s", o.path(), r.etag, o.etag)
		}
		s, want := stateOf(o.kind, got), stateOf(o.kind, o.acked)
		if s != want && (o.alt == nil || s != *o.alt) {
			alt := "no write in flight"
			if o.alt != nil {
				alt = fmt.Sprintf("in flight: %+v", *o.alt)
			}
			return 0, fmt.Errorf("%s reads %+v; acknowledged %+v (%s)", o.path(), s, want, alt)
		}
	}
	cut := noWriteInFlight
	if o.alt != nil {
		cut = cutNotApplied
		if stateOf(o.kind, got) == *o.alt {
			cut = cutApplied
		}
	}
	o.acked, o.etag, o.exact, o.alt = got, r.etag, true, nil
	o.trashed = got["in_trash"] == true
	return cut, nil
}

// etagVersion reads a weak ETag W/"n"; 0 when there is none.
func etagVersion(etag string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(etag, `W/"`), `"`))
	return n
}

func stateOf(k kind, obj map[string]any) state {
	s := state{trash: obj["in_trash"] == true}
	props, _ := obj["properties"].(map[string]any)
	switch k {
	case kindPage:
		s.title = plain(dig(props, "title", "title"))
	case kindRecord:
		s.title = plain(dig(props, "Name", "title"))
		s.points, _ = dig(props, "Points", "number").(float64)
		s.status, _ = dig(props, "Status", "select", "name").(string)
	case kindDatabase:
		s.title = plain(obj["title"])
		var schema []string
		for name, p := range props {
			schema = append(schema, fmt.Sprintf("%s:%v", name, dig(p, "type")))
		}
		slices.Sort(schema)
		s.tree = strings.Join(schema, ",")
	case kindMindMap:
		s.title = plain(obj["title"])
		s.tree = parseNode(obj["root"]).String()
	}
	return s
}

// plain joins the plain_text of a rich-text array.
func plain(v any) string {
	items, _ := v.([]any)
	var b strings.Builder
	for _, it := range items {
		s, _ := dig(it, "plain_text").(string)
		b.WriteString(s)
	}
	return b.String()
}

// mmNode is a mind-map node as far as the writers edit it.
type mmNode struct {
	id, text string
	kids     []*mmNode
}

func parseNode(v any) *mmNode {
	m, _ := v.(map[string]any)
	n := &mmNode{}
	n.id, _ = m["id"].(string)
	n.text, _ = m["text"].(string)
	kids, _ := m["children"].([]any)
	for _, k := range kids {
		n.kids = append(n.kids, parseNode(k))
	}
	return n
}

func (n *mmNode) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *mmNode) write(b *strings.Builder) {
	fmt.Fprintf(b, "%s=%q(", n.id, n.text)
	for i, k := range n.kids {
		if i > 0 {
			b.WriteByte(',')
		}
		k.write(b)
	}
	b.WriteByte(')')
}

// all lists the tree's nodes, the root first.
func (n *mmNode) all() []*mmNode {
	out := []*mmNode{n}
	for _, k := range n.kids {
		out = append(out, k.all()...)
	}
	return out
}

// blockList is a page's content as acknowledged: blocks in order, and the texts of an append
// whose answer never came.
type blockList struct {
	want    []block
	pending []string
}

// block is a paragraph: its whole acknowledged object when an answer showed it, else its text.
type block struct {
	text string
	full map[string]any
}

// check compares the page's listed children with the acknowledged ones, in order, and then
// takes the listing as known.
func (l *blockList) check(page string, got []map[string]any) (inFlight, error) {
	n := len(l.want)
	if len(got) != n && (l.pending == nil || len(got) != n+len(l.pending)) {
		return 0, fmt.Errorf("page %s has %d blocks; acknowledged %d (plus %d in flight)", page, len(got), n, len(l.pending))
	}
	for i, g := range got {
		if i >= n {
			if txt := plain(dig(g, "paragraph", "rich_text")); txt != l.pending[i-n] {
				return 0, fmt.Errorf("page %s block %d reads %q; the append in flight sent %q", page, i, txt, l.pending[i-n])
			}
			continue
		}
		w := l.want[i]
		if w.full != nil {
			if d := cmp.Diff(w.full, g); d != "" {
				return 0, fmt.Errorf("page %s block %d differs from its acknowledged answer (-acked +read):\n%s", page, i, d)
			}
		} else if txt := plain(dig(g, "paragraph", "rich_text")); g["type"] != "paragraph" || txt != w.text {
			return 0, fmt.Errorf("page %s block %d is %v %q; acknowledged paragraph %q", page, i, g["type"], txt, w.text)
		}
	}
	cut := noWriteInFlight
	if l.pending != nil {
		cut = cutNotApplied
		if len(got) > n {
			cut = cutApplied
		}
	}
	l.want, l.pending = l.want[:0], nil
	for _, g := range got {
		l.want = append(l.want, block{full: g})
	}
	return cut, nil
}
