package mindmap

import (
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/quire"
)

// checkProblems fails unless err is a validation error whose every detail names a path and a
// reason.
func checkProblems(t *testing.T, err error) {
	t.Helper()
	e, ok := err.(*quire.Error)
	if !ok {
		t.Fatalf("error %T is not a *quire.Error: %v", err, err)
	}
	if e.Code != quire.CodeValidation || len(e.Details) == 0 {
		t.Fatalf("error without details: %v", e)
	}
	for _, d := range e.Details {
		if d.Path == "" || d.Reason == "" {
			t.Fatalf("detail without path or reason: %v", e)
		}
	}
}

// checkTree fails unless the subtree at n, whose root is at depth, keeps every rule.
func checkTree(t *testing.T, n *Node, depth int, ids map[string]bool) {
	t.Helper()
	if depth > MaxDepth {
		t.Fatalf("a node at depth %d was accepted", depth)
	}
	if utf8.RuneCountInString(n.Text) > MaxTextLength || !slices.Contains(Colors, n.Color) || len(n.Children) > MaxArray {
		t.Fatalf("an invalid node was accepted: %+v", n)
	}
	if n.ID != "" {
		if !quire.ValidID(n.ID) || ids[n.ID] {
			t.Fatalf("a bad or repeated id was accepted: %q", n.ID)
		}
		ids[n.ID] = true
	}
	for _, c := range n.Children {
		checkTree(t, c, depth+1, ids)
	}
}

func decodeObject(data []byte) (map[string]any, bool) {
	var body map[string]any
	if json.Unmarshal(data, &body) != nil || body == nil {
		return nil, false
	}
	return body, true
}

// FuzzDecodeNew: any body is answered without a panic, by a validation error with paths, or
// by a tree within the limits.
func FuzzDecodeNew(f *testing.F) {
	for _, s := range []string{
		`{"parent":{"workspace":true},"title":"Plan"}`,
		`{"title":[{"text":{"content":"a"}}],"root":{"id":"` + idA + `","text":"R","color":"red","collapsed":true,"children":[{"text":"A","children":[{}]}]},"settings":{"layout":"org","theme":"dark"}}`,
		`{"title":"x","root":{"children":[{"id":"` + idA + `"},{"id":"` + idA + `"}]}}`,
		`{"title":5,"root":[],"settings":{"zoom":1}}`,
		`{"":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		body, ok := decodeObject(data)
		if !ok {
			return
		}
		nm, err := DecodeNew(body)
		if err != nil {
			checkProblems(t, err)
			return
		}
		if !slices.Contains(Layouts, nm.Settings.Layout) || !slices.Contains(Themes, nm.Settings.Theme) {
			t.Fatalf("settings %+v were accepted", nm.Settings)
		}
		if nm.Root != nil {
			if nm.Root.Size() > MaxNodes {
				t.Fatalf("%d nodes were accepted", nm.Root.Size())
			}
			checkTree(t, nm.Root, 1, map[string]bool{})
		}
	})
}

// FuzzDecodePatch: any body is answered without a panic, by a validation error with paths, or
// by edits that each carry what their op needs.
func FuzzDecodePatch(f *testing.F) {
	for _, s := range []string{
		`{"title":"T","settings":{"layout":"both"}}`,
		`{"edits":[{"op":"add","parent_id":"` + idA + `","node":{"text":"n","children":[{}]},"after":"` + idB + `"},` +
			`{"op":"update","node_id":"` + idA + `","text":"t","color":"red","collapsed":true},` +
			`{"op":"move","node_id":"` + idB + `","parent_id":"` + idA + `","position":{"type":"start"}},` +
			`{"op":"delete","node_id":"` + idB + `"}]}`,
		`{"edits":[{"op":"move","node_id":"` + idA + `","parent_id":"` + idB + `","after":"` + idA + `","position":{}}]}`,
		`{"edits":[{},7,{"op":"copy"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		body, ok := decodeObject(data)
		if !ok {
			return
		}
		patch, err := DecodePatch(body)
		if err != nil {
			checkProblems(t, err)
			return
		}
		if len(patch.Edits) > MaxArray {
			t.Fatalf("%d edits were accepted", len(patch.Edits))
		}
		ids := map[string]bool{}
		for _, e := range patch.Edits {
			switch e.Op {
			case OpAdd:
				if !quire.ValidID(e.ParentID) || e.Node == nil || e.After != "" && e.Start {
					t.Fatalf("an add without what it needs was accepted: %+v", e)
				}
				checkTree(t, e.Node, 2, ids)
			case OpMove:
				if !quire.ValidID(e.NodeID) || !quire.ValidID(e.ParentID) || e.After == e.NodeID {
					t.Fatalf("a move without what it needs was accepted: %+v", e)
				}
			case OpUpdate, OpDelete:
				if !quire.ValidID(e.NodeID) || e.Node != nil {
					t.Fatalf("an %s without what it needs was accepted: %+v", e.Op, e)
				}
			default:
				t.Fatalf("op %q was accepted", e.Op)
			}
		}
	})
}
