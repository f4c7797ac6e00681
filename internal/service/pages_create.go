package service

import (
	"context"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// CreatePage makes a page (or folder, or mind map page) with its content, in one transaction.
func (s *Service) CreatePage(ctx context.Context, p *quire.Principal, in NewPage) (*quire.Node, error) {
	now := quire.NowMillis()
	n := &quire.Node{
		ID: quire.NewID(), WorkspaceID: p.WorkspaceID(), Object: quire.ObjectPage, PageType: in.PageType,
		ParentType: in.Parent.Type, ParentID: in.Parent.ID, Title: marshalRichText(in.Title),
		TitlePlain: in.Title.PlainText(), Properties: []byte(`{}`), Description: []byte(`[]`),
		Icon: in.Icon, Cover: in.Cover, Version: 1,
		CreatedMs: now, CreatedBy: p.Token.OwnerID, EditedMs: now, EditedBy: p.Token.OwnerID,
	}
	if in.Parent.Type == quire.ParentDatabase {
		return s.CreateRecord(ctx, p, in)
	}
	err := s.store.InTx(ctx, func(tx *store.Tx) error {
		parent, err := s.placeUnder(ctx, tx, p, in.Parent)
		if err != nil {
			return err
		}
		if err := s.placeLast(ctx, tx, p, n, parent); err != nil {
			return err
		}
		var refs fileRefs
		refs.icon(&n.Icon, "icon")
		refs.icon(&n.Cover, "cover")
		refs.blocks(in.Children, "children")
		if err := refs.use(ctx, tx, p.WorkspaceID(), n.ID); err != nil {
			return err
		}
		if err := tx.InsertNode(ctx, n); err != nil {
			return err
		}
		recordNode(tx, p, "created", n, quire.EventData{})
		if n.PageType == quire.PageTypeMindMap {
			return s.insertMindMap(ctx, tx, n, in.MindMap)
		}
		_, err = s.insertTree(ctx, tx, p, n, n.ID, in.Children, Placement{}, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

func marshalRichText(rt blocks.RichText) []byte {
	return blocks.AppendRichText(nil, rt)
}

// recordTitle is the stored title of a record: its short form (blocks.AppendShortRichText), as
// the record's values are stored. Only a record's own rendering reads it (from its values): a
// record that leaves its database gets its title in full again (leaveDatabase), and an export
// writes it in full (transfer).
func recordTitle(rt blocks.RichText) []byte {
	return blocks.AppendShortRichText(nil, rt)
}
