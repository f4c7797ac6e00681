package service

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// PatchPage changes a page's title, icon, cover or trash state.
func (s *Service) PatchPage(ctx context.Context, p *quire.Principal, id string, patch PagePatch) (*quire.Node, error) {
	restoring := patch.InTrash != nil && !*patch.InTrash
	record := false
	w := nodeWrite{id: id, kind: "page", is: isPage, ifMatch: patch.IfMatch, lockTree: patch.InTrash != nil, record: true,
		check: func(n *quire.Node) error {
			record = n.ParentType == quire.ParentDatabase
			if record {
				patch.Title = nil
			} else if patch.titleErr != nil {
				return patch.titleErr
			}
			contentChange := patch.Title != nil || patch.Icon != nil || patch.Cover != nil || (record && patch.Properties != nil)
			if n.Hidden() && contentChange && !restoring {
				return quire.Invalid("in_trash", quire.ReasonArchived, "The page is in trash; restore it with in_trash false first.")
			}
			return nil
		}}
	n, err := s.writeNode(ctx, p, w, func(tx *store.Tx, n *quire.Node) error {
		if err := setIcons(ctx, tx, p.WorkspaceID(), n, patch.Icon, patch.Cover); err != nil {
			return err
		}
		if patch.Title != nil {
			n.Title, n.TitlePlain = marshalRichText(*patch.Title), patch.Title.PlainText()
		}
		if record && patch.Properties != nil {
			if err := s.patchRecordProperties(ctx, tx, p, n, patch.Properties); err != nil {
				return err
			}
		}
		recordFields(tx, p, n, patch.eventFields())
		return saveNode(ctx, tx, p, n, patch.InTrash, patch.Title != nil)
	})
	if err != nil {
		return nil, err
	}
	return n, s.RenderRecords(ctx, []*quire.Node{n}, nil)
}

// TrashPage puts a page in trash (DELETE): nothing is removed, its descendants are hidden.
func (s *Service) TrashPage(ctx context.Context, p *quire.Principal, id string) (*quire.Node, error) {
	yes := true
	return s.PatchPage(ctx, p, id, PagePatch{InTrash: &yes})
}
