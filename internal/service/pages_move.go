package service

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// MovePage puts a page under another parent (a page or the workspace), after a sibling when
// after is set, else at the end. Moves are serialized per workspace, so two racing moves can
// never make a cycle.
func (s *Service) MovePage(ctx context.Context, p *quire.Principal, id string, to Parent, after, ifMatch string) (*quire.Node, error) {
	w := nodeWrite{id: id, kind: "page", ifMatch: ifMatch, lockTree: true,
		is: func(n *quire.Node) bool { return isPage(n) && n.ParentType != quire.ParentDatabase },
		check: func(n *quire.Node) error {
			if n.Hidden() {
				return quire.Invalid("page_id", quire.ReasonArchived, "The page is in trash; restore it first.")
			}
			return nil
		}}
	if to.Type == quire.ParentDatabase {
		w.refuse = quire.Invalid(to.idPath(), quire.ReasonInvalidValue, "A page moves under a page or the workspace.")
	}
	return s.writeNode(ctx, p, w, func(tx *store.Tx, n *quire.Node) error {
		defer recordMove(tx, p, n, n.ParentType, n.ParentID) // from: as read; to: as the move leaves it
		if to.Type == quire.ParentPage {
			if to.ID == id {
				return quire.Invalid(to.idPath(), quire.ReasonCycle, "A page cannot move under itself.")
			}
			under, err := tx.IsDescendant(ctx, to.ID, id)
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
		if parent != nil && parent.PageType != quire.PageTypePage && parent.PageType != quire.PageTypeFolder {
			return quire.Invalid(to.idPath(), quire.ReasonInvalidValue, "A page moves under a page or a folder.")
		}
		ms := quire.NowMillis()
		if parent != nil {
			if err := tx.TouchNode(ctx, parent.ID, ms, p.Token.OwnerID); err != nil {
				return err
			}
		}
		if parent == nil {
			if after != "" {
				n.Position, err = s.topLevelAfter(ctx, tx, p.WorkspaceID(), after)
			} else {
				n.Position, err = s.topLevelEnd(ctx, tx, p.WorkspaceID())
			}
			if err != nil {
				return err
			}
			n.ParentType, n.ParentID, n.TrashedUnder = quire.ParentWorkspace, "", false
			if err := tx.DetachChildPageBlock(ctx, n.ID); err != nil {
				return err
			}
		} else {
			if err := tx.DetachChildPageBlock(ctx, n.ID); err != nil {
				return err
			}
			keys, err := positions(ctx, tx, p.WorkspaceID(), parent.ID, Placement{After: after, Path: "after"}, 1)
			if err != nil {
				return err
			}
			n.Position, n.ParentType, n.ParentID, n.TrashedUnder = keys[0], quire.ParentPage, parent.ID, false
		}
		n.EditedMs, n.EditedBy = ms, p.Token.OwnerID
		if err := tx.UpdateNode(ctx, n); err != nil {
			return err
		}
		if parent != nil {
			if err := s.insertChildPageBlock(ctx, tx, n, parent); err != nil {
				return err
			}
		}
		return tx.RefreshTrashedUnder(ctx, n.ID)
	})
}
