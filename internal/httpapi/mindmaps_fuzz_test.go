package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/testdb"
)

// serve sends one request to e's handler directly (usable inside a fuzz function).
func (e *env) serve(t testing.TB, method, path string, body any) *response {
	t.Helper()
	var buf []byte
	if body != nil {
		buf, _ = json.Marshal(body)
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(buf))
	req.Header.Set("Authorization", "Bearer "+e.full)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	e.srv.Config.Handler.ServeHTTP(w, req)
	r := &response{status: w.Code, header: w.Header(), raw: w.Body.Bytes()}
	if err := json.Unmarshal(r.raw, &r.body); err != nil {
		t.Fatalf("%s %s → %d, not JSON: %s", method, path, w.Code, r.raw)
	}
	return r
}

// treeIDs lists the ids of a node tree, parents first.
func treeIDs(n map[string]any) []string {
	out := []string{n["id"].(string)}
	for _, c := range n["children"].([]any) {
		out = append(out, treeIDs(c.(map[string]any))...)
	}
	return out
}

func treeDepth(n map[string]any) int {
	d := 0
	for _, c := range n["children"].([]any) {
		d = max(d, treeDepth(c.(map[string]any)))
	}
	return d + 1
}

// FuzzMindMapEdits turns its input into a PATCH of up to 8 edits (add, update, move, delete)
// naming the nodes of a fresh mind map, or a node it does not have, and sends it: the answer is
// never a 5xx; a refusal is the error body and changes nothing; an accepted PATCH answers what
// a server with nothing cached reads, with a node_count that counts the tree.
func FuzzMindMapEdits(f *testing.F) {
	e := newEnv(f, testdb.SQLite(f))
	for _, seed := range [][]byte{
		{0, 1, 1, 1, 2, 0, 2, 3, 0},          // add under A, update A1, move B under R
		{2, 1, 2, 3, 3, 0, 4, 1, 0},          // move A under A1 (a cycle), move first, delete A
		{4, 0, 0},                            // delete the root
		{0, 4, 3, 2, 2, 1, 4, 2, 0},          // add under an unknown node, move A1 under A, delete A1
		{0, 0, 1, 0, 5, 1, 2, 5, 0, 4, 3, 0}, // adds, then a move and a delete of the new nodes
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		created := e.serve(t, http.MethodPost, "/v2/mind-maps", map[string]any{"parent": wsParent, "title": "F",
			"root": mmNode("R", mmNode("A", mmNode("A1")), mmNode("B"))})
		if created.status != 200 {
			t.Fatalf("create: %d %s", created.status, created.raw)
		}
		path := "/v2/mind-maps/" + created.body["id"].(string)
		ids := append(treeIDs(rootOf(created)), "7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a") // the last is no node
		pick := func(b byte) string { return ids[int(b)%len(ids)] }
		var edits []any
		for i := 0; i+2 < len(prog) && len(edits) < 8; i += 3 {
			a, b, x := pick(prog[i+1]), pick(prog[i+2]), prog[i+2]
			switch prog[i] % 5 {
			case 0:
				node := mmNode("new", mmNode("new child"))
				edits = append(edits, map[string]any{"op": "add", "parent_id": a, "node": node})
			case 1:
				edits = append(edits, map[string]any{"op": "update", "node_id": a, "text": "t", "collapsed": x%2 == 0})
			case 2:
				edits = append(edits, map[string]any{"op": "move", "node_id": a, "parent_id": b})
			case 3:
				edits = append(edits, map[string]any{"op": "move", "node_id": a, "parent_id": b, "position": map[string]any{"type": "start"}})
			case 4:
				edits = append(edits, map[string]any{"op": "delete", "node_id": a})
			}
		}
		r := e.serve(t, http.MethodPatch, path, map[string]any{"edits": edits})
		switch {
		case r.status == 400:
			checkErrorShape(t, r)
			if after := e.serve(t, http.MethodGet, path, nil); !cmp.Equal(after.body, created.body) {
				t.Fatalf("a refused PATCH changed the map: %s", after.raw)
			}
		case r.status == 200:
			if diff := cmp.Diff(freshGet(t, e, path), r.body); diff != "" {
				t.Fatalf("the answer differs from a fresh read (-fresh +answer):\n%s", diff)
			}
			if n := len(treeIDs(rootOf(r))); r.body["node_count"] != float64(n) || treeDepth(rootOf(r)) > 100 {
				t.Fatalf("node_count %v for %d nodes", r.body["node_count"], n)
			}
		default:
			t.Fatalf("PATCH %v → %d %s", edits, r.status, r.raw)
		}
	})
}
