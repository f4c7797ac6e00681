package service

import (
	"context"
	"fmt"

	"github.com/quire-dev/quire/internal/mindmap"
	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

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
		return beyond(quire.Beyond(e.Path+".node", quire.ReasonTooMany, mindmap.MaxNodes, int64(ed.m.NodeCount+size)),
			fmt.Sprintf("A mind map has at most %d nodes; this one has %d and the edit adds %d.", mindmap.MaxNodes, ed.m.NodeCount, size))
	}
	depth, _, err := ed.tx.MindMapAncestry(ctx, ed.m.ID, parent.ID, "")
	if err != nil {
		return err
	}
	if depth+e.Node.Height() > mindmap.MaxDepth {
		return beyond(quire.Beyond(e.Path+".node", quire.ReasonOutOfRange, mindmap.MaxDepth, int64(depth+e.Node.Height())),
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

// branch reads the node an edit moves or deletes: any node but the root, which refusal names.
func (ed *editor) branch(ctx context.Context, e mindmap.Edit, refusal string) (*quire.MindMapNode, error) {
	n, err := ed.node(ctx, e.NodeID, e.Path+".node_id")
	if err == nil && n.ParentID == "" {
		return nil, quire.Invalid(e.Path+".node_id", quire.ReasonInvalidValue, refusal)
	}
	return n, err
}

func (ed *editor) move(ctx context.Context, e mindmap.Edit) error {
	n, err := ed.branch(ctx, e, "The root cannot move.")
	if err != nil {
		return err
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
	n, err := ed.branch(ctx, e, "The root cannot be deleted.")
	if err != nil {
		return err
	}
	k, err := ed.tx.DeleteMindMapSubtree(ctx, ed.m.ID, n.ID)
	if err != nil {
		return err
	}
	ed.changes = append(ed.changes, nodeChange{delete: n.ID, from: n.ParentID})
	ed.m.NodeCount -= k
	return nil
}

// beyond is a validation_error of one detail beyond a limit (quire.Beyond).
func beyond(d quire.Detail, message string) error {
	return &quire.Error{Code: quire.CodeValidation, Message: message, Details: []quire.Detail{d}}
}
