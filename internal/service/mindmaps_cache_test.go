package service

import (
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
)

// outlineOf writes a tree as text, "r(a(a1),b)", with each node's text.
func outlineOf(t *MindMapTree) string {
	var sb strings.Builder
	var write func(n *quire.MindMapNode)
	write = func(n *quire.MindMapNode) {
		sb.WriteString(n.Text)
		if kids := t.Kids[n.ID]; len(kids) > 0 {
			sb.WriteByte('(')
			for i, k := range kids {
				if i > 0 {
					sb.WriteByte(',')
				}
				write(k)
			}
			sb.WriteByte(')')
		}
	}
	write(t.Root)
	return sb.String()
}

func mmRow(id, parent, pos string) *quire.MindMapNode {
	return &quire.MindMapNode{ID: id, ParentID: parent, Position: pos, Text: id, Color: "default"}
}

func TestMindMapTree_Apply(t *testing.T) {
	// Read in any order: siblings are put in position order.
	base := newTree("r", []*quire.MindMapNode{
		mmRow("b", "r", "a2"), mmRow("a1", "a", "a0"), mmRow("r", "", "a0"), mmRow("a", "r", "a1"),
	})
	if got := outlineOf(base); got != "r(a(a1),b)" || base.Count != 4 {
		t.Fatalf("base = %s (%d nodes)", got, base.Count)
	}
	moved := mmRow("a1", "r", "a0") // a1 moves first under r
	renamed := mmRow("r", "", "a0")
	renamed.Text = "R"
	for _, tc := range []struct {
		name    string
		changes []nodeChange
		want    string
		count   int
	}{
		{"insert between siblings", []nodeChange{{insert: []*quire.MindMapNode{mmRow("x", "r", "a1V"), mmRow("x1", "x", "a0")}}},
			"r(a(a1),x(x1),b)", 6},
		{"move to another parent", []nodeChange{{update: moved, from: "a"}}, "r(a1,a,b)", 4},
		{"update the root", []nodeChange{{update: renamed, from: ""}}, "R(a(a1),b)", 4},
		{"delete a subtree", []nodeChange{{delete: "a", from: "r"}}, "r(b)", 2},
		{"in order", []nodeChange{{insert: []*quire.MindMapNode{mmRow("y", "a1", "a0")}}, {delete: "a", from: "r"}}, "r(b)", 2},
	} {
		got := base.apply(tc.changes)
		if outlineOf(got) != tc.want || got.Count != tc.count {
			t.Errorf("%s: %s (%d nodes), want %s (%d)", tc.name, outlineOf(got), got.Count, tc.want, tc.count)
		}
		if outlineOf(base) != "r(a(a1),b)" || base.Count != 4 {
			t.Fatalf("%s changed the tree it was applied to: %s", tc.name, outlineOf(base))
		}
	}
}

func TestTreeCache(t *testing.T) {
	var c treeCache
	small := newTree("r", []*quire.MindMapNode{mmRow("r", "", "a0")})
	c.put("m", 2, small)
	if c.get("m", 2) != small || c.get("m", 1) != nil || c.get("m", 3) != nil || c.get("n", 2) != nil {
		t.Fatal("get answers only the version put")
	}
	c.put("m", 1, newTree("r", []*quire.MindMapNode{mmRow("r", "", "a0")}))
	if c.get("m", 2) != small {
		t.Fatal("an older version replaced a newer one")
	}
	// Over the bound, other maps are evicted.
	big := &MindMapTree{Root: small.Root, Count: treeCacheNodes / 4}
	for i := range 5 {
		c.put(string(rune('a'+i)), 1, big)
	}
	if c.nodes > treeCacheNodes {
		t.Fatalf("%d nodes kept, over %d", c.nodes, treeCacheNodes)
	}
	if c.get("e", 1) != big {
		t.Fatal("the last map put was not kept")
	}
	// A tree too large to keep is not kept.
	c.put("huge", 1, &MindMapTree{Root: small.Root, Count: treeCacheNodes/4 + 1})
	if c.get("huge", 1) != nil {
		t.Fatal("a tree over a quarter of the bound was kept")
	}
}
