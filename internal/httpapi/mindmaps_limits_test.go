package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// bigTree is a root with 99 children of 100 children each: 10,000 nodes, texts n0 … n9999.
func bigTree() map[string]any {
	k := 0
	next := func() string { k++; return fmt.Sprintf("n%d", k-1) }
	root := map[string]any{"text": next()}
	var kids []any
	for range 99 {
		c := map[string]any{"text": next()}
		var gk []any
		for range 100 {
			gk = append(gk, map[string]any{"text": next()})
		}
		c["children"] = gk
		kids = append(kids, c)
	}
	root["children"] = kids
	return root
}

// chain is a line of n nodes, texts d1 … dn (dn at depth n).
func chain(n int) map[string]any {
	var node map[string]any
	for d := n; d >= 1; d-- {
		next := map[string]any{"text": fmt.Sprintf("d%d", d)}
		if node != nil {
			next["children"] = []any{node}
		}
		node = next
	}
	return node
}

// rowTouches installs triggers that record every insert, update and delete of a mind-map node,
// and returns a function that reads and clears the record.
func rowTouches(t *testing.T, st *store.Store) func() map[string]int {
	t.Helper()
	ctx := context.Background()
	stmts := []string{`CREATE TABLE mm_touch (op TEXT NOT NULL)`}
	if st.Engine() == store.Postgres {
		stmts = append(stmts, `CREATE FUNCTION mm_touch_log() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN INSERT INTO mm_touch VALUES (TG_OP); RETURN NULL; END $$`,
			`CREATE TRIGGER mm_touch AFTER INSERT OR UPDATE OR DELETE ON mind_map_nodes FOR EACH ROW EXECUTE FUNCTION mm_touch_log()`)
	} else {
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			stmts = append(stmts, `CREATE TRIGGER mm_touch_`+op+` AFTER `+op+` ON mind_map_nodes BEGIN INSERT INTO mm_touch VALUES ('`+op+`'); END`)
		}
	}
	err := st.InTx(ctx, func(tx *store.Tx) error {
		for _, s := range stmts {
			if err := tx.ExecForTest(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return func() map[string]int {
		out := map[string]int{}
		err := st.InTx(ctx, func(tx *store.Tx) error {
			for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
				var k int
				if err := tx.QueryRowForTest(ctx, `SELECT COUNT(*) FROM mm_touch WHERE op = $1`, op).Scan(&k); err != nil {
					return err
				}
				if k > 0 {
					out[op] = k
				}
			}
			return tx.ExecForTest(ctx, `DELETE FROM mm_touch`)
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}

func TestMindMap_NodeLimit(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		r := e.mkMindMap(t, e.full, map[string]any{"parent": wsParent, "title": "Big", "root": bigTree()})
		if r.body["node_count"] != float64(10000) {
			t.Fatalf("node_count = %v, want 10000", r.body["node_count"])
		}
		mapID := r.body["id"].(string)
		ids := nodeIDs(rootOf(r))
		if len(ids) != 10000 {
			t.Fatalf("the answer has %d nodes, want 10000", len(ids))
		}
		touched := rowTouches(t, st)

		// Full: one more node is a clear validation error, and nothing changes.
		add := map[string]any{"op": "add", "parent_id": ids["n1"], "node": mmNode("extra")}
		wantDetail(t, e.do(http.MethodPatch, "/v2/mind-maps/"+mapID, e.full, map[string]any{"edits": []any{add}}),
			400, "validation_error", "edits[0].node", "too_many")
		if got := touched(); len(got) != 0 {
			t.Fatalf("a refused add wrote rows: %v", got)
		}

		// Each edit writes only its own rows, on a map of 10,000 nodes.
		for _, tc := range []struct {
			name  string
			edits []any
			want  map[string]int
		}{
			{"delete a leaf, then add one", []any{map[string]any{"op": "delete", "node_id": ids["n2"]}, add},
				map[string]int{"DELETE": 1, "INSERT": 1}},
			{"update", []any{map[string]any{"op": "update", "node_id": ids["n5000"], "text": "changed"}}, map[string]int{"UPDATE": 1}},
			{"move a subtree of 101 nodes", []any{map[string]any{"op": "move", "node_id": ids["n102"], "parent_id": ids["n203"],
				"position": map[string]any{"type": "start"}}}, map[string]int{"UPDATE": 1}},
			{"delete a subtree of 101 nodes", []any{map[string]any{"op": "delete", "node_id": ids["n304"]}}, map[string]int{"DELETE": 101}},
		} {
			r := e.do(http.MethodPatch, "/v2/mind-maps/"+mapID, e.full, map[string]any{"edits": tc.edits})
			wantOK(t, r, 200)
			if got := touched(); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("%s: rows written %v, want %v", tc.name, got, tc.want)
			}
		}
		r = e.do(http.MethodGet, "/v2/mind-maps/"+mapID, e.full, nil)
		if r.body["node_count"] != float64(9899) || len(nodeIDs(rootOf(r))) != 9899 {
			t.Errorf("after the edits node_count = %v with %d nodes, want 9899", r.body["node_count"], len(nodeIDs(rootOf(r))))
		}

		// A new map over the limit.
		over := bigTree()
		over["children"].([]any)[0].(map[string]any)["children"].([]any)[0].(map[string]any)["children"] = []any{mmNode("one too many")}
		wantDetail(t, e.do(http.MethodPost, "/v2/mind-maps", e.full, map[string]any{"parent": wsParent, "title": "x", "root": over}),
			400, "validation_error", "root", "too_many")
	})
}

func TestMindMap_DepthLimit(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		root := chain(100)
		root["children"] = append(root["children"].([]any), mmNode("B", mmNode("B1")))
		r := e.mkMindMap(t, e.full, map[string]any{"parent": wsParent, "title": "Deep", "root": root})
		mapID := r.body["id"].(string)
		ids := nodeIDs(rootOf(r))
		for _, tc := range []struct {
			name         string
			edit         map[string]any
			path, reason string // "" when the edit applies
		}{
			{"add under the deepest node", map[string]any{"op": "add", "parent_id": ids["d100"], "node": mmNode("x")},
				"edits[0].node", "out_of_range"},
			{"add two levels under depth 99", map[string]any{"op": "add", "parent_id": ids["d99"], "node": mmNode("y", mmNode("y1"))},
				"edits[0].node", "out_of_range"},
			{"move a two-level subtree under depth 99", map[string]any{"op": "move", "node_id": ids["B"], "parent_id": ids["d99"]},
				"edits[0].parent_id", "out_of_range"},
			{"move a two-level subtree under depth 98", map[string]any{"op": "move", "node_id": ids["B"], "parent_id": ids["d98"]}, "", ""},
			{"add one level under depth 99", map[string]any{"op": "add", "parent_id": ids["d99"], "node": mmNode("z")}, "", ""},
		} {
			r := e.do(http.MethodPatch, "/v2/mind-maps/"+mapID, e.full, map[string]any{"edits": []any{tc.edit}})
			if tc.path == "" {
				wantOK(t, r, 200)
				continue
			}
			wantDetail(t, r, 400, "validation_error", tc.path, tc.reason)
		}

		// A new map one level too deep: the path names the node that is too deep.
		path := "root" + strings.Repeat(".children[0]", 100)
		wantDetail(t, e.do(http.MethodPost, "/v2/mind-maps", e.full, map[string]any{"parent": wsParent, "title": "x", "root": chain(101)}),
			400, "validation_error", path, "out_of_range")
	})
}
