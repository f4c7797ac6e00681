package service

import (
	"context"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// Move is where PATCH /v2/pages/:id/move puts a node: under To, right after sibling After or
// right before sibling Before (at most one of them), else at the end.
type Move struct {
	To            Parent
	After, Before string
}

// Moved is a node as a move leaves it, with the ids of the siblings it now sits between ("" for
// none; always "" in a database, whose records have no order of their own).
type Moved struct {
	*quire.Node
	After, Before string
}

// DecodeMove validates a PATCH /v2/pages/:id/move body: {parent, after?, before?}. A null after
// or before names no sibling: the end, as when left out (the original service's docs send
// after null for the end, so before null cannot mean the start without after null meaning it too).
func DecodeMove(body map[string]any) (Move, error) {
	var pr quire.Problems
	m := Move{To: DecodeParent(&pr, "parent", body["parent"])}
	for _, k := range jsonbody.SortedKeys(body) {
		if !MoveBody.Takes(&pr, k) {
			continue
		}
		v := body[k]
		switch k {
		case "parent":
		case "after", "before":
			if v == nil {
				continue
			}
			s, ok := v.(string)
			if !ok || !quire.ValidID(s) {
				pr.Add(k, quire.ReasonInvalidValue, k+" must be the id of a sibling.")
			}
			if k == "after" {
				m.After = s
			} else {
				m.Before = s
			}
		}
	}
	if m.After != "" && m.Before != "" {
		pr.Add("before", quire.ReasonInvalidValue, "Send after or before, not both.")
	}
	return m, pr.Err()
}

// MoveNode puts a page, folder, mind map, record or database under another parent: the
// workspace, a page or folder, or (a page only) a database, where it becomes a record; a record
// moved out becomes a page (pages_convert.go). Moves are serialized per workspace, so two
// racing moves can never make a cycle; everything a move changes is written in its one
// transaction.
func (s *Service) MoveNode(ctx context.Context, p *quire.Principal, id string, m Move, ifMatch string) (*Moved, error) {
	w := nodeWrite{id: id, kind: "page", ifMatch: ifMatch, lockTree: true, record: true,
		is: func(*quire.Node) bool { return true },
		check: func(n *quire.Node) error {
			if n.Hidden() {
				return quire.Invalid("page_id", quire.ReasonArchived, "The page is in trash; restore it first.")
			}
			return nil
		}}
	if m.To.Type == quire.ParentDatabase {
		w.databases = []string{m.To.ID}
	}
	out := &Moved{}
	n, err := s.writeNode(ctx, p, w, func(tx *store.Tx, n *quire.Node) error {
		defer recordMove(tx, p, n, n.ParentType, n.ParentID) // from: as read; to: as the move leaves it
		return s.move(ctx, tx, p, n, m, out)
	})
	if err != nil {
		return nil, err
	}
	out.Node = n
	return out, s.RenderRecords(ctx, []*quire.Node{n}, nil)
}

// move is MoveNode's change of node n (its row locked), filling in out's siblings.
func (s *Service) move(ctx context.Context, tx *store.Tx, p *quire.Principal, n *quire.Node, m Move, out *Moved) error {
	to := m.To
	if err := checkMoveKind(n, to); err != nil {
		return err
	}
	if to.Type != quire.ParentWorkspace {
		if to.ID == n.ID {
			return quire.Invalid(to.idPath(), quire.ReasonCycle, "A page cannot move under itself.")
		}
		under, err := tx.IsDescendant(ctx, to.ID, n.ID)
		if err != nil {
			return err
		}
		if under {
			return quire.Invalid(to.idPath(), quire.ReasonCycle, "A page cannot move under its own descendant.")
		}
	}
	parent, err := s.placeUnder(ctx, tx, p, to)
	if err != nil {
		return err
	}
	if parent != nil && parent.Object == quire.ObjectPage && parent.PageType != quire.PageTypePage && parent.PageType != quire.PageTypeFolder {
		return quire.Invalid(to.idPath(), quire.ReasonInvalidValue, "A page moves under a page or a folder.")
	}
	ms := quire.NowMillis()
	if err := s.convertForMove(ctx, tx, p, n, to, ms); err != nil {
		return err
	}
	if err := tx.DetachChildPageBlock(ctx, n.ID); err != nil {
		return err
	}
	switch {
	case parent == nil:
		n.Position, err = s.topLevelPlace(ctx, tx, p.WorkspaceID(), m)
	case parent.Object == quire.ObjectDatabase:
		n.Position, err = recordPlace(m)
	default:
		if err = tx.TouchNode(ctx, parent.ID, ms, p.Token.OwnerID); err != nil {
			return err
		}
		n.Position, err = childPlace(ctx, tx, p.WorkspaceID(), parent.ID, m)
	}
	if err != nil {
		return err
	}
	n.ParentType, n.ParentID, n.TrashedUnder = to.Type, to.ID, false
	n.EditedMs, n.EditedBy = ms, p.Token.OwnerID
	if err := tx.UpdateNode(ctx, n); err != nil {
		return err
	}
	var nb store.Neighbours
	switch {
	case parent == nil:
		nb, err = tx.TopLevelNeighbours(ctx, p.WorkspaceID(), n.Position, n.ID)
	case parent.Object == quire.ObjectPage:
		if err = s.insertChildPageBlock(ctx, tx, n, parent); err == nil {
			nb, err = tx.BlockNeighbours(ctx, parent.ID, n.Position, n.ID)
		}
	}
	if err != nil {
		return err
	}
	out.After, out.Before = nb.Before, nb.After
	return tx.RefreshTrashedUnder(ctx, n.ID)
}

// checkMoveKind refuses what cannot go under a parent of to's type whatever the parent: a
// database holds records, which are pages; a database is never a record.
func checkMoveKind(n *quire.Node, to Parent) error {
	if to.Type != quire.ParentDatabase {
		return nil
	}
	switch {
	case n.Object == quire.ObjectDatabase:
		return quire.Invalid(to.idPath(), quire.ReasonInvalidValue, "A database moves under a page, a folder or the workspace, not into a database.")
	case n.PageType != quire.PageTypePage:
		return quire.Invalid(to.idPath(), quire.ReasonInvalidValue, "Only a page becomes a record; a "+
			map[string]string{quire.PageTypeFolder: "folder", quire.PageTypeMindMap: "mind map"}[n.PageType]+
			" moves under a page, a folder or the workspace.")
	}
	return nil
}

// recordPlace is the position of a node moved into a database. Records are all at position "a"
// (their order is their views'), so a sibling to place it by means nothing there.
func recordPlace(m Move) (string, error) {
	if m.After != "" {
		return "", quire.Invalid("after", quire.ReasonInvalidValue, "A database orders its records by its views; send no after.")
	}
	if m.Before != "" {
		return "", quire.Invalid("before", quire.ReasonInvalidValue, "A database orders its records by its views; send no before.")
	}
	return "a", nil
}

// childPlace is a position under page parent as m asks: after or before a child block that is
// not in trash, else after the last child.
func childPlace(ctx context.Context, tx *store.Tx, ws, parent string, m Move) (string, error) {
	if m.Before == "" {
		keys, err := positions(ctx, tx, ws, parent, Placement{After: m.After, Path: "after"}, 1)
		if err != nil {
			return "", err
		}
		return keys[0], nil
	}
	sib, err := tx.Block(ctx, ws, m.Before)
	if err != nil || sib.ParentID != parent || sib.InTrash {
		return "", quire.Invalid("before", quire.ReasonInvalidValue, "before must name a child of the parent that is not in trash.")
	}
	lo, err := tx.PositionBefore(ctx, parent, sib.Position)
	if err != nil {
		return "", err
	}
	return order.Between(lo, sib.Position)
}

// topLevelPlace is a position at the workspace's top level as m asks: right after or right
// before a top-level node, else after the last one.
func (s *Service) topLevelPlace(ctx context.Context, tx *store.Tx, ws string, m Move) (string, error) {
	sibID, path := m.After, "after"
	if m.Before != "" {
		sibID, path = m.Before, "before"
	}
	if sibID == "" {
		return s.topLevelEnd(ctx, tx, ws)
	}
	if err := tx.LockTopLevel(ctx, ws); err != nil {
		return "", err
	}
	sib, err := tx.Node(ctx, ws, sibID)
	if err != nil || sib.ParentType != quire.ParentWorkspace {
		return "", quire.Invalid(path, quire.ReasonInvalidValue, path+" must name a top-level page or database.")
	}
	if m.Before != "" {
		prev, err := tx.TopLevelPositionBefore(ctx, ws, sib.Position)
		if err != nil {
			return "", err
		}
		return order.Between(prev, sib.Position)
	}
	next, err := tx.NextTopLevelPosition(ctx, ws, sib.Position)
	if err != nil {
		return "", err
	}
	return order.Between(sib.Position, next)
}
