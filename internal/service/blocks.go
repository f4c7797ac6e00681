package service

import (
	"context"
	"strconv"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// insertTree stores a forest of new blocks under parentID (page itself or one of its blocks)
// at pl, and returns the top-level ones in order.
func (s *Service) insertTree(ctx context.Context, tx *store.Tx, p *quire.Principal, page *quire.Node, parentID string,
	bs []*blocks.Block, pl Placement, now int64) ([]*quire.Block, error) {
	if len(bs) == 0 {
		return nil, nil
	}
	keys, err := positions(ctx, tx, page.WorkspaceID, parentID, pl, len(bs))
	if err != nil {
		return nil, err
	}
	return s.insertTreeAt(ctx, tx, p, page, parentID, bs, keys, now)
}

// insertTreeAt is insertTree at the given positions, one key per block of bs.
func (s *Service) insertTreeAt(ctx context.Context, tx *store.Tx, p *quire.Principal, page *quire.Node, parentID string,
	bs []*blocks.Block, keys []string, now int64) ([]*quire.Block, error) {
	top, rows, err := buildTree(p, page, parentID, bs, keys, now)
	if err != nil {
		return nil, err
	}
	if err := tx.InsertBlocks(ctx, rows); err != nil {
		return nil, err
	}
	return top, nil
}

// buildTree makes the rows of new blocks bs and their children under parentID, bs at keys: the
// top level's rows, and every row, parents before their children.
func buildTree(p *quire.Principal, page *quire.Node, parentID string, bs []*blocks.Block, keys []string, now int64) (top, rows []*quire.Block, err error) {
	var add func(parent string, bs []*blocks.Block, keys []string) ([]*quire.Block, error)
	add = func(parent string, bs []*blocks.Block, keys []string) ([]*quire.Block, error) {
		level := make([]*quire.Block, len(bs))
		for i, b := range bs {
			row := &quire.Block{
				ID: quire.NewID(), WorkspaceID: page.WorkspaceID, PageID: page.ID, ParentID: parent, Position: keys[i],
				Type: b.Type, Content: blocks.MarshalContent(b), HasChildren: len(b.Children) > 0, Version: 1,
				CreatedMs: now, CreatedBy: p.Token.OwnerID, EditedMs: now, EditedBy: p.Token.OwnerID,
			}
			rows = append(rows, row)
			level[i] = row
			if len(b.Children) > 0 {
				ck, err := order.NBetween("", "", len(b.Children))
				if err != nil {
					return nil, err
				}
				if _, err := add(row.ID, b.Children, ck); err != nil {
					return nil, err
				}
			}
		}
		return level, nil
	}
	if top, err = add(parentID, bs, keys); err != nil {
		return nil, nil, err
	}
	return top, rows, nil
}

// blockPage checks the caller reaches block b's page and returns that page.
func (s *Service) blockPage(ctx context.Context, p *quire.Principal, b *quire.Block) (*quire.Node, error) {
	if err := s.Reach(ctx, p, b.PageID, "block "+b.ID); err != nil {
		return nil, err
	}
	return s.store.Node(ctx, p.WorkspaceID(), b.PageID)
}

// Block returns a block the caller reaches (trashed blocks too) with its page, or not_found.
func (s *Service) Block(ctx context.Context, p *quire.Principal, id string) (*quire.Block, *quire.Node, error) {
	if !quire.ValidID(id) {
		return nil, nil, quire.NotFound("block " + id)
	}
	b, err := s.store.Block(ctx, p.WorkspaceID(), id)
	if err != nil {
		return nil, nil, err
	}
	page, err := s.blockPage(ctx, p, b)
	if err != nil {
		return nil, nil, err
	}
	return b, page, nil
}

// container is what children are read from or appended to: a page (or database) node, or a
// block, with the page whose content it is.
type container struct {
	ID    string
	Page  *quire.Node
	Block *quire.Block // nil when the container is the page itself
}

// resolveContainer finds id as a page (or database) or else as a block, within the caller's
// reach. Pages first: most containers are pages (an append to a page, a listing of its content),
// and a page found is one read, where looking for a block first cost a failed read before the
// page's two. A child_page or child_database block has its node's id, so it resolves to the
// node either way.
func (s *Service) resolveContainer(ctx context.Context, p *quire.Principal, id string) (*container, error) {
	if !quire.ValidID(id) {
		return nil, quire.NotFound("block " + id)
	}
	// The guard read id with the token, in one statement, when it names a page or database the
	// token reaches (that read is the reach check); no node there: id is a block, or not_found.
	var page *quire.Node
	var err error = quire.NotFound("page or database " + id)
	if r, ok := readWithToken(ctx, p, id); ok && r.serves("container") {
		if r.node != nil {
			n := *r.node
			return &container{ID: id, Page: &n}, nil
		}
	} else {
		page, err = s.store.Node(ctx, p.WorkspaceID(), id)
	}
	switch {
	case err == nil:
		// A workspace-scoped token reaches every node of its workspace, which Node checked.
		if !p.Token.WorkspaceScoped {
			if err := s.Reach(ctx, p, id, "block "+id); err != nil {
				return nil, err
			}
		}
		return &container{ID: id, Page: page}, nil
	case !quire.IsCode(err, quire.CodeNotFound):
		return nil, err
	}
	b, err := s.store.Block(ctx, p.WorkspaceID(), id)
	if err != nil {
		return nil, err
	}
	if b.Type == "child_page" || b.Type == "child_database" {
		return nil, quire.NotFound("block " + id) // its node is gone
	}
	if page, err = s.blockPage(ctx, p, b); err != nil {
		return nil, err
	}
	return &container{ID: id, Page: page, Block: b}, nil
}

// Children pages through the children of a block or page, in order, leaving out trashed ones.
func (s *Service) Children(ctx context.Context, p *quire.Principal, id, startCursor string, pageSize int) (Results[*quire.Block], *container, error) {
	if err := checkPageSize(pageSize); err != nil {
		return Results[*quire.Block]{}, nil, err
	}
	c, err := s.resolveContainer(ctx, p, id)
	if err != nil {
		return Results[*quire.Block]{}, nil, err
	}
	list := childrenList(id)
	var after *store.ChildKey
	if startCursor != "" {
		after = &store.ChildKey{}
		if err := s.cursors.Decode(startCursor, list, after); err != nil {
			return Results[*quire.Block]{}, nil, InvalidCursor()
		}
	}
	// The guard's read found the page and listed its children with the token when it could
	// (AuthenticateNodeChildren); a block's children, or another page of them, are read here.
	bs, listed := []*quire.Block(nil), false
	if r, ok := readWithToken(ctx, p, id); ok && c.Block == nil && r.node != nil {
		bs, listed = r.children(after, pageSize+1)
	}
	if !listed {
		if bs, err = s.store.Children(ctx, id, after, pageSize+1); err != nil {
			return Results[*quire.Block]{}, nil, err
		}
	}
	for _, b := range bs { // the listing leaves them to us: a block's children are in its page
		b.WorkspaceID, b.PageID = c.Page.WorkspaceID, c.Page.ID
	}
	pg, err := paginate(s, list, bs, pageSize, func(b *quire.Block) any { return store.ChildKey{Position: b.Position, ID: b.ID} })
	return pg, c, err
}

// decodeChildren decodes an append's children for parent: those blocks.ReadAppend read when
// parent asks for nothing more, else the body's tree through DecodeValue, which reports every
// problem.
func decodeChildren(children any, parent *blocks.Block) ([]*blocks.Block, error) {
	if a, ok := children.(*blocks.Append); ok {
		if bs, ok := a.Under(parent); ok {
			return bs, nil
		}
		var err error
		if children, err = a.Tree(); err != nil {
			return nil, err
		}
	}
	return blocks.DecodeValue(children, "children", parent)
}

// childrenList names the list of id's children in its cursors.
func childrenList(id string) string { return "children:" + id }

// AppendChildren decodes and appends blocks under a page or block, atomically, and returns the
// created top-level blocks in order. children is the body's children array as jsonbody.Parse
// read it, or the body as blocks.ReadAppend read it.
func (s *Service) AppendChildren(ctx context.Context, p *quire.Principal, id string, children any, pl Placement) ([]*quire.Block, *container, error) {
	c, err := s.resolveContainer(ctx, p, id)
	if err != nil {
		return nil, nil, err
	}
	var parent *blocks.Block
	if c.Block != nil {
		if parent, err = blocks.UnmarshalContent(c.Block.Type, c.Block.Content); err != nil {
			return nil, nil, err
		}
	}
	bs, err := decodeChildren(children, parent)
	if err != nil {
		return nil, nil, err
	}
	if c.Block == nil {
		if err := contentAllowed(c.Page, "children"); err != nil {
			return nil, nil, err
		}
	}
	// Rewrites the blocks' file sources to their stored form, so before they are written; the
	// uploads are checked and recorded inside the transaction (refs.use).
	var refs fileRefs
	refs.blocks(bs, "children")
	var top []*quire.Block
	if pl.atEnd() && s.store.Engine() == store.Postgres {
		release, err := s.appends.take(ctx, c.ID)
		if err != nil {
			return nil, nil, err
		}
		defer release() // after the transaction has ended
	}
	err = s.store.InTx(ctx, func(tx *store.Tx) error {
		now := quire.NowMillis()
		if pl.atEnd() {
			if top, err = s.insertAtEnd(ctx, tx, p, c, bs, now); err != nil {
				return err
			}
		} else {
			// Between two siblings: touching the page first locks its row (PostgreSQL), so
			// that the siblings read next stay where they are until COMMIT.
			if err := tx.TouchNode(ctx, c.Page.ID, now, p.Token.OwnerID); err != nil {
				return err
			}
			if err := s.checkWritable(ctx, tx, c); err != nil {
				return err
			}
			if top, err = s.insertTree(ctx, tx, p, c.Page, c.ID, bs, pl, now); err != nil {
				return err
			}
		}
		if err := refs.use(ctx, tx, p.WorkspaceID(), c.Page.ID); err != nil {
			return err
		}
		recordContent(tx, p, c.Page, blockIDs(top)...)
		if c.Block != nil {
			return tx.TouchBlock(ctx, c.Block.ID, now, p.Token.OwnerID)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return top, c, nil
}

// contentAllowed refuses content blocks in pages that hold none: folders and mind maps.
func contentAllowed(page *quire.Node, path string) error {
	switch page.PageType {
	case quire.PageTypeFolder:
		return quire.Invalid(path, quire.ReasonInvalidValue, "A folder holds pages and databases only.")
	case quire.PageTypeMindMap:
		return quire.Invalid(path, quire.ReasonInvalidValue, "A mind map holds nodes; edit it through /v2/mind-maps.")
	case quire.PageTypeDatabase:
		return quire.Invalid(path, quire.ReasonInvalidValue, "A database holds records; create them as pages.")
	}
	return nil
}

// checkWritable re-reads the container inside the write transaction and refuses it when it, or
// its page, is in trash.
func (s *Service) checkWritable(ctx context.Context, tx *store.Tx, c *container) error {
	page, err := tx.Node(ctx, c.Page.WorkspaceID, c.Page.ID)
	if err != nil {
		return err
	}
	if page.Hidden() {
		return quire.Invalid("block_id", quire.ReasonArchived, "The page is in trash; restore it first.")
	}
	if c.Block != nil {
		b, err := tx.Block(ctx, c.Page.WorkspaceID, c.Block.ID)
		if err != nil {
			return err
		}
		if b.InTrash {
			return quire.Invalid("block_id", quire.ReasonArchived, "The block is in trash; restore it first.")
		}
	}
	return nil
}

// PatchBlock changes a block's content (its type is fixed) or trash state.
// body is the request body as jsonbody.Parse read it.
func (s *Service) PatchBlock(ctx context.Context, p *quire.Principal, id string, body map[string]any, ifMatch string) (*quire.Block, *quire.Node, error) {
	b, page, err := s.Block(ctx, p, id)
	if err != nil {
		return nil, nil, err
	}
	if b.Type == "child_page" || b.Type == "child_database" {
		return s.patchChildPageBlock(ctx, p, b, body, ifMatch)
	}
	current, err := blocks.UnmarshalContent(b.Type, b.Content)
	if err != nil {
		return nil, nil, err
	}
	u, err := blocks.DecodeUpdate(current, body)
	if err != nil {
		return nil, nil, err
	}
	err = s.store.InTx(ctx, func(tx *store.Tx) error {
		// Touching the page first locks its row (PostgreSQL): writes to one page's blocks run
		// one at a time, in the same lock order as appends.
		ms := quire.NowMillis()
		if err := tx.TouchNode(ctx, b.PageID, ms, p.Token.OwnerID); err != nil {
			return err
		}
		if b, err = tx.Block(ctx, p.WorkspaceID(), id); err != nil {
			return err
		}
		if err := CheckVersion(ifMatch, b.Version); err != nil {
			return err
		}
		// Merge into the block as it is now: a change made since the first read is kept.
		if current, err = blocks.UnmarshalContent(b.Type, b.Content); err != nil {
			return err
		}
		if u, err = blocks.DecodeUpdate(current, body); err != nil {
			return err
		}
		pageNow, err := tx.Node(ctx, p.WorkspaceID(), b.PageID)
		if err != nil {
			return err
		}
		restoring := u.InTrash != nil && !*u.InTrash
		if (b.InTrash || pageNow.Hidden()) && u.Block != nil && !restoring {
			return quire.Invalid("in_trash", quire.ReasonArchived, "The block is in trash; restore it with in_trash false first.")
		}
		if pageNow.Hidden() && restoring {
			return quire.Invalid("in_trash", quire.ReasonArchived, "The block's page is in trash; restore the page first.")
		}
		if u.Block != nil {
			var refs fileRefs
			refs.block(u.Block, b.Type)
			if err := refs.use(ctx, tx, p.WorkspaceID(), b.PageID); err != nil {
				return err
			}
			b.Content = blocks.MarshalContent(u.Block)
		}
		if u.InTrash != nil {
			b.InTrash = *u.InTrash
		}
		b.EditedMs, b.EditedBy = ms, p.Token.OwnerID
		recordContent(tx, p, pageNow, b.ID)
		if err := tx.UpdateBlock(ctx, b); err != nil {
			return err
		}
		page = pageNow
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return b, page, nil
}

// patchChildPageBlock handles PATCH and DELETE of a child_page block: trashing or restoring it
// trashes or restores the page; its content is the page's and changes through the page.
func (s *Service) patchChildPageBlock(ctx context.Context, p *quire.Principal, b *quire.Block, body map[string]any, ifMatch string) (*quire.Block, *quire.Node, error) {
	var pr quire.Problems
	var inTrash *bool
	for _, k := range jsonbody.SortedKeys(body) {
		switch v := body[k]; k {
		case "in_trash", "archived":
			t, ok := v.(bool)
			if !ok {
				pr.Add(k, quire.ReasonInvalidType, k+" must be a boolean.")
				continue
			}
			inTrash = &t
		case b.Type:
			pr.Add(k, quire.ReasonImmutable, "A "+b.Type+" block changes through its page or database.")
		default:
			pr.Add(jsonbody.Join("", k), quire.ReasonUnknownField, "A block update has no field "+k+".")
		}
	}
	if err := pr.Err(); err != nil {
		return nil, nil, err
	}
	if err := CheckVersion(ifMatch, b.Version); err != nil {
		return nil, nil, err
	}
	if inTrash != nil {
		if _, err := s.PatchPage(ctx, p, b.ID, PagePatch{InTrash: inTrash}); err != nil {
			return nil, nil, err
		}
	}
	return s.Block(ctx, p, b.ID)
}

// TrashBlock puts a block in trash (DELETE). Its children stay with it, hidden.
func (s *Service) TrashBlock(ctx context.Context, p *quire.Principal, id string) (*quire.Block, *quire.Node, error) {
	return s.PatchBlock(ctx, p, id, map[string]any{"in_trash": true}, "")
}
