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

// editor applies the edits of one PATCH to mind map m inside tx, keeping m.NodeCount.
type editor struct {
	tx      *store.Tx
	m       *quire.MindMap
	changes []nodeChange // every row written, in order, for the cached nodes
}

func (ed *editor) apply(ctx context.Context, e mindmap.Edit) error {
	switch e.Op {
	case mindmap.OpAdd:
		return ed.add(ctx, e)
	case mindmap.OpUpdate:
		return ed.update(ctx, e)
	case mindmap.OpMove:
		return ed.move(ctx, e)
	case mindmap.OpDelete:
		return ed.delete(ctx, e)
	}
	return quire.Invalid(e.Path+".op", quire.ReasonInvalidValue, "op is one of add, update, move, delete.")
}

// node reads the node an edit names at path, or answers 400 there.
func (ed *editor) node(ctx context.Context, id, path string) (*quire.MindMapNode, error) {
	n, err := ed.tx.MindMapNode(ctx, ed.m.ID, id)
	if quire.IsCode(err, quire.CodeNotFound) {
		return nil, quire.Invalid(path, quire.ReasonInvalidValue, "The mind map has no node "+id+".")
	}
	return n, err
}

func (ed *editor) add(ctx context.Context, e mindmap.Edit) error {
	parent, err := ed.node(ctx, e.ParentID, e.Path+".parent_id")
	if err != nil {
		return err
	}
	size := e.Node.Size()
	if ed.m.NodeCount+size > mindmap.MaxNodes {
		return quire.Invalid(e.Path+".node", quire.ReasonTooMany,
			fmt.Sprintf("A mind map has at most %d nodes; this one has %d and the edit adds %d.", mindmap.MaxNodes, ed.m.NodeCount, size))
	}
	depth, _, err := ed.tx.MindMapAncestry(ctx, ed.m.ID, parent.ID, "")
	if err != nil {
		return err
	}
	if depth+e.Node.Height() > mindmap.MaxDepth {
		return quire.Invalid(e.Path+".node", quire.ReasonOutOfRange,
			fmt.Sprintf("A mind map is at most %d levels deep.", mindmap.MaxDepth))
	}
	if err := ed.checkNewIDs(ctx, e.Node, e.Path+".node"); err != nil {
		return err
	}
	pos, err := ed.place(ctx, e, parent.ID)
	if err != nil {
		return err
	}
	rows, err := flatten(e.Node, parent.ID, pos)
	if err != nil {
		return err
	}
	if err := ed.tx.InsertMindMapNodes(ctx, ed.m.ID, rows); err != nil {
		return err
	}
	ed.changes = append(ed.changes, nodeChange{insert: rows})
	ed.m.NodeCount += len(rows)
	return nil
}

// checkNewIDs answers 400 at the id of any node of subtree n whose chosen id the map already has.
func (ed *editor) checkNewIDs(ctx context.Context, n *mindmap.Node, path string) error {
	if n.ID != "" {
		_, err := ed.tx.MindMapNode(ctx, ed.m.ID, n.ID)
		if err == nil {
			return quire.Invalid(path+".id", quire.ReasonInvalidValue, "The mind map already has a node "+n.ID+".")
		}
		if !quire.IsCode(err, quire.CodeNotFound) {
			return err
		}
	}
	for i, c := range n.Children {
		if err := ed.checkNewIDs(ctx, c, fmt.Sprintf("%s.children[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// place returns a position under parent where edit e puts its node: after e.After, first, or
// last.
func (ed *editor) place(ctx context.Context, e mindmap.Edit, parent string) (string, error) {
	if e.After != "" {
		sib, err := ed.tx.MindMapNode(ctx, ed.m.ID, e.After)
		if quire.IsCode(err, quire.CodeNotFound) || err == nil && sib.ParentID != parent {
			return "", quire.Invalid(e.Path+".after", quire.ReasonInvalidValue, "after must name a child of parent_id.")
		}
		if err != nil {
			return "", err
		}
		next, err := ed.tx.NextMindMapSibling(ctx, ed.m.ID, parent, sib.Position)
		if err != nil {
			return "", err
		}
		return order.Between(sib.Position, next)
	}
	first, last, err := ed.tx.MindMapChildBounds(ctx, ed.m.ID, parent)
	if err != nil {
		return "", err
	}
	if e.Start {
		return order.Between("", first)
	}
	return order.Between(last, "")
}

func (ed *editor) update(ctx context.Context, e mindmap.Edit) error {
	n, err := ed.node(ctx, e.NodeID, e.Path+".node_id")
	if err != nil {
		return err
	}
	if e.Text != nil {
		n.Text = *e.Text
	}
	if e.Color != nil {
		n.Color = *e.Color
	}
	if e.Collapsed != nil {
		n.Collapsed = *e.Collapsed
	}
	ed.changes = append(ed.changes, nodeChange{update: n, from: n.ParentID})
	return ed.tx.UpdateMindMapNode(ctx, ed.m.ID, n)
}

func (ed *editor) move(ctx context.Context, e mindmap.Edit) error {
	n, err := ed.node(ctx, e.NodeID, e.Path+".node_id")
	if err != nil {
		return err
	}
	if n.ParentID == "" {
		return quire.Invalid(e.Path+".node_id", quire.ReasonInvalidValue, "The root cannot move.")
	}
	parent, err := ed.node(ctx, e.ParentID, e.Path+".parent_id")
	if err != nil {
		return err
	}
	depth, through, err := ed.tx.MindMapAncestry(ctx, ed.m.ID, parent.ID, n.ID)
	if err != nil {
		return err
	}
	if through {
		return quire.Invalid(e.Path+".parent_id", quire.ReasonCycle, "A node cannot move under itself or its own subtree.")
	}
	if parent.ID != n.ParentID {
		// The subtree only needs measuring when it goes deeper than it is.
		oldDepth, _, err := ed.tx.MindMapAncestry(ctx, ed.m.ID, n.ParentID, "")
		if err != nil {
			return err
		}
		if depth > oldDepth {
			room := mindmap.MaxDepth - depth
			h, err := ed.tx.MindMapSubtreeHeight(ctx, ed.m.ID, n.ID, room)
			if err != nil {
				return err
			}
			if h > room {
				return quire.Invalid(e.Path+".parent_id", quire.ReasonOutOfRange,
					fmt.Sprintf("A mind map is at most %d levels deep.", mindmap.MaxDepth))
			}
		}
	}
	pos, err := ed.place(ctx, e, parent.ID)
	if err != nil {
		return err
	}
	ed.changes = append(ed.changes, nodeChange{update: n, from: n.ParentID})
	n.ParentID, n.Position = parent.ID, pos
	return ed.tx.UpdateMindMapNode(ctx, ed.m.ID, n)
}

func (ed *editor) delete(ctx context.Context, e mindmap.Edit) error {
	n, err := ed.node(ctx, e.NodeID, e.Path+".node_id")
	if err != nil {
		return err
	}
	if n.ParentID == "" {
		return quire.Invalid(e.Path+".node_id", quire.ReasonInvalidValue, "The root cannot be deleted.")
	}
	k, err := ed.tx.DeleteMindMapSubtree(ctx, ed.m.ID, n.ID)
	if err != nil {
		return err
	}
	ed.changes = append(ed.changes, nodeChange{delete: n.ID, from: n.ParentID})
	ed.m.NodeCount -= k
	return nil
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
