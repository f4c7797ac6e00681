package service

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/markdown"
	"github.com/quire-dev/quire/internal/mindmap"
	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// NewMindMap is a validated POST /v2/mind-maps body.
type NewMindMap struct {
	Parent Parent
	mindmap.New
}

// DecodeNewMindMap validates a POST /v2/mind-maps body, reporting every problem with its path.
func DecodeNewMindMap(body map[string]any) (NewMindMap, error) {
	var p quire.Problems
	out := NewMindMap{Parent: DecodeParent(&p, "parent", body["parent"])}
	nm, err := mindmap.DecodeNew(body)
	if err != nil {
		mergeProblems(&p, err)
	}
	out.New = nm
	return out, p.Err()
}

// MindMap is a whole mind map at one version: its page node, its settings and its tree.
type MindMap struct {
	Node     *quire.Node
	Settings mindmap.Settings
	Tree     *MindMapTree
}

// CreateMindMap makes a mind map page with its tree, in one transaction, and reads it back.
func (s *Service) CreateMindMap(ctx context.Context, p *quire.Principal, in NewMindMap) (*MindMap, error) {
	n, err := s.CreatePage(ctx, p, NewPage{Parent: in.Parent, PageType: quire.PageTypeMindMap, Title: in.Title, MindMap: &in.New})
	if err != nil {
		return nil, err
	}
	return s.readMindMap(ctx, p.WorkspaceID(), n.ID)
}

// GetMindMap returns a mind map the caller reaches (trashed ones too), or not_found.
func (s *Service) GetMindMap(ctx context.Context, p *quire.Principal, id string) (*MindMap, error) {
	if err := s.Reach(ctx, p, id, "mind map "+id); err != nil {
		return nil, err
	}
	return s.currentMindMap(ctx, p.WorkspaceID(), id)
}

// currentMindMap returns mind map id as it is now: from the cache when the cached tree is of
// the map's current version, else from one snapshot read.
func (s *Service) currentMindMap(ctx context.Context, ws, id string) (*MindMap, error) {
	n, m, err := s.store.MindMapHead(ctx, ws, id)
	if err != nil {
		return nil, err
	}
	if t := s.trees.get(id, n.Version); t != nil {
		return newMindMap(n, m, t)
	}
	return s.readMindMap(ctx, ws, id)
}

// readMindMap reads a whole mind map from one snapshot, and keeps its nodes for later requests.
func (s *Service) readMindMap(ctx context.Context, ws, id string) (*MindMap, error) {
	n, m, nodes, err := s.store.MindMapSnapshot(ctx, ws, id)
	if err != nil {
		return nil, err
	}
	t := newTree(m.RootID, nodes)
	if t.Root == nil {
		return nil, fmt.Errorf("mind map %s has no root node %s", id, m.RootID)
	}
	s.trees.put(id, n.Version, t)
	return newMindMap(n, m, t)
}

func newMindMap(n *quire.Node, m *quire.MindMap, t *MindMapTree) (*MindMap, error) {
	out := &MindMap{Node: n, Tree: t}
	if err := json.Unmarshal(m.Settings, &out.Settings); err != nil {
		return nil, fmt.Errorf("mind map %s settings: %w", n.ID, err)
	}
	return out, nil
}

// insertMindMap stores the tree and settings of mind map page n, just inserted. A map created
// without a root gets one that reads like its title: a mind map always has a root.
func (s *Service) insertMindMap(ctx context.Context, tx *store.Tx, n *quire.Node, nm *mindmap.New) error {
	root, settings := &mindmap.Node{Text: n.TitlePlain, Color: mindmap.Colors[0]}, mindmap.DefaultSettings()
	if nm != nil {
		settings = nm.Settings
		if nm.Root != nil {
			root = nm.Root
		}
	}
	rows, err := flatten(root, "", order.First)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	if err := tx.InsertMindMap(ctx, &quire.MindMap{ID: n.ID, RootID: rows[0].ID, Settings: raw, NodeCount: len(rows)}); err != nil {
		return err
	}
	return tx.InsertMindMapNodes(ctx, n.ID, rows)
}

// flatten lists the rows of subtree root, placed under parent at pos, parents first; nodes
// without an id get a new one.
func flatten(root *mindmap.Node, parent, pos string) ([]*quire.MindMapNode, error) {
	var rows []*quire.MindMapNode
	var add func(n *mindmap.Node, parent, pos string) error
	add = func(n *mindmap.Node, parent, pos string) error {
		if n.ID == "" {
			n.ID = quire.NewID()
		}
		rows = append(rows, &quire.MindMapNode{ID: n.ID, ParentID: parent, Position: pos, Text: n.Text,
			Color: n.Color, Collapsed: n.Collapsed})
		if len(n.Children) == 0 {
			return nil
		}
		keys, err := order.NBetween("", "", len(n.Children))
		if err != nil {
			return err
		}
		for i, c := range n.Children {
			if err := add(c, n.ID, keys[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return rows, add(root, parent, pos)
}

// PatchMindMap applies a PATCH /v2/mind-maps/:id: the edits in order, then title and settings,
// all in one transaction; the first edit that cannot apply answers 400 at its path and nothing
// changes. Each edit reads and writes only the rows it concerns.
func (s *Service) PatchMindMap(ctx context.Context, p *quire.Principal, id string, patch mindmap.Patch, ifMatch string) (*MindMap, error) {
	var m *quire.MindMap
	var from int64 // the version the edits apply to
	var ed *editor
	w := nodeWrite{id: id, kind: "mind map", is: isMindMap, ifMatch: ifMatch,
		check: func(n *quire.Node) error {
			if n.Hidden() {
				return quire.Invalid("mind_map_id", quire.ReasonArchived, "The mind map is in trash; restore it through PATCH /v2/pages/:id with in_trash false first.")
			}
			return nil
		}}
	n, err := s.writeNode(ctx, p, w, func(tx *store.Tx, n *quire.Node) error {
		var err error
		if m, err = tx.MindMap(ctx, id); err != nil {
			return err
		}
		from, ed = n.Version, &editor{tx: tx, m: m}
		count := m.NodeCount
		for _, e := range patch.Edits {
			if err := ed.apply(ctx, e); err != nil {
				return err
			}
		}
		settingsChanged := patch.Settings.Layout != nil || patch.Settings.Theme != nil
		if settingsChanged {
			var cur mindmap.Settings
			if err := json.Unmarshal(m.Settings, &cur); err != nil {
				return err
			}
			if m.Settings, err = json.Marshal(patch.Settings.Apply(cur)); err != nil {
				return err
			}
		}
		if settingsChanged || m.NodeCount != count {
			if err := tx.UpdateMindMap(ctx, m); err != nil {
				return err
			}
		}
		if patch.Title != nil {
			n.Title, n.TitlePlain = marshalRichText(*patch.Title), patch.Title.PlainText()
		}
		recordMindMap(tx, p, n)
		return saveNode(ctx, tx, p, n, nil, patch.Title != nil)
	})
	if err != nil {
		return nil, err
	}
	if t := s.trees.get(id, from); t != nil {
		t = t.apply(ed.changes)
		s.trees.put(id, n.Version, t)
		return newMindMap(n, m, t)
	}
	return s.readMindMap(ctx, p.WorkspaceID(), id)
}

// exportMindMap writes a mind map's Markdown: its nodes as a nested bulleted list, the root
// first.
func (s *Service) exportMindMap(ctx context.Context, r *markdown.Renderer, page *quire.Node) error {
	mm, err := s.currentMindMap(ctx, page.WorkspaceID, page.ID)
	if err != nil {
		return err
	}
	var write func(n *quire.MindMapNode, depth int) error
	write = func(n *quire.MindMapNode, depth int) error {
		b := &blocks.Block{Type: "bulleted_list_item", Content: blocks.Content{RichText: blocks.Plain(n.Text)}}
		if err := r.Block(depth, b); err != nil {
			return err
		}
		for _, k := range mm.Tree.Kids[n.ID] {
			if err := write(k, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return write(mm.Tree.Root, 0)
}
