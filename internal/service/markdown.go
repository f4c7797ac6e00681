package service

import (
	"context"
	"io"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/markdown"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// exportBatch is how many children each read of a Markdown export fetches: enough to make the
// per-query cost small, few enough that memory stays a few hundred KB whatever the page.
const exportBatch = 500

// ExportMarkdown writes the Markdown of a page's whole tree to w, depth first, reading children
// in keyset pages (exportBatch): memory holds one page of blocks per level, never the tree.
// start, when set, is called once the page is known to be readable and before anything is
// written, so that the caller can send its headers.
func (s *Service) ExportMarkdown(ctx context.Context, p *quire.Principal, pageID string, w io.Writer, start func(*quire.Node) error) error {
	page, err := s.Page(ctx, p, pageID)
	if err != nil {
		return err
	}
	if start != nil {
		if err := start(page); err != nil {
			return err
		}
	}
	r := markdown.NewRenderer(w)
	if page.PageType == quire.PageTypeMindMap {
		err = s.exportMindMap(ctx, r, page)
	} else {
		err = s.exportChildren(ctx, r, page.ID, 0)
	}
	if err != nil {
		return err
	}
	return r.Close()
}

func (s *Service) exportChildren(ctx context.Context, r *markdown.Renderer, parent string, depth int) error {
	var after *store.ChildKey
	for {
		batch, err := s.store.ChildContents(ctx, parent, after, exportBatch)
		if err != nil {
			return err
		}
		for _, row := range batch {
			b, err := blocks.UnmarshalContent(row.Type, row.Content)
			if err != nil {
				return err
			}
			s.fillLinks(b, row.ID)
			s.presentBlockFile(ctx, b)
			if err := r.Block(depth, b); err != nil {
				return err
			}
			if row.HasChildren && row.Type != "child_page" && row.Type != "child_database" {
				if err := s.exportChildren(ctx, r, row.ID, depth+1); err != nil {
					return err
				}
			}
		}
		if len(batch) < exportBatch {
			return nil
		}
		last := batch[len(batch)-1]
		after = &store.ChildKey{Position: last.Position, ID: last.ID}
	}
}

// fillLinks sets the addresses a renderer links to, which are never stored.
func (s *Service) fillLinks(b *blocks.Block, id string) {
	switch b.Type {
	case "child_page":
		b.Content.URL = s.PageURL(id)
	case "child_database":
		b.Content.URL = s.DatabaseURL(id)
	case "link_to_page":
		if b.Content.PageID != "" {
			b.Content.URL = s.PageURL(b.Content.PageID)
		} else {
			b.Content.URL = s.DatabaseURL(b.Content.DatabaseID)
		}
	}
}

// ReplaceMarkdown replaces a page's content blocks with the blocks of a Markdown text,
// atomically: the old blocks go to trash (child pages and databases stay), the new ones are
// validated with the limits of a JSON request first.
func (s *Service) ReplaceMarkdown(ctx context.Context, p *quire.Principal, pageID, md string) (*quire.Node, error) {
	bs, err := ParseMarkdown(md)
	if err != nil {
		return nil, err
	}
	page, err := s.Page(ctx, p, pageID)
	if err != nil {
		return nil, err
	}
	if err := contentAllowed(page, "markdown"); err != nil {
		return nil, err
	}
	err = s.store.InTx(ctx, func(tx *store.Tx) error {
		now, err := tx.Node(ctx, p.WorkspaceID(), pageID)
		if err != nil {
			return err
		}
		if now.Hidden() {
			return quire.Invalid("page_id", quire.ReasonArchived, "The page is in trash; restore it first.")
		}
		ms := quire.NowMillis()
		if err := tx.TouchNode(ctx, pageID, ms, p.Token.OwnerID); err != nil { // locks the page first
			return err
		}
		if err := tx.TrashContent(ctx, pageID, ms, p.Token.OwnerID); err != nil {
			return err
		}
		recordContent(tx, p, now)
		segs, err := s.splitAtChildLinks(ctx, tx, pageID, bs)
		if err != nil {
			return err
		}
		for _, sg := range segs {
			if _, err := s.insertTree(ctx, tx, p, now, pageID, sg.blocks, sg.at, ms); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.store.Node(ctx, p.WorkspaceID(), pageID)
}

// segment is a run of imported blocks and where it goes among the page's children.
type segment struct {
	blocks []*blocks.Block
	at     Placement
}

// splitAtChildLinks cuts imported blocks at the links an export writes for the page's child
// pages and databases ([Title](url) alone in a paragraph). Those children stay where they are,
// so each link is dropped and the blocks after it go right after that child: export then
// import keeps the tree instead of adding a link paragraph per child page. Without such links
// the blocks go after everything, as before. Only the page's remaining children, its child
// pages and databases, are read.
func (s *Service) splitAtChildLinks(ctx context.Context, tx *store.Tx, pageID string, bs []*blocks.Block) ([]segment, error) {
	links := map[string]string{} // address → child page or database id
	var after *store.ChildKey
	for {
		batch, err := tx.Children(ctx, pageID, after, exportBatch)
		if err != nil {
			return nil, err
		}
		for _, c := range batch {
			switch c.Type {
			case "child_page":
				links[s.PageURL(c.ID)] = c.ID
			case "child_database":
				links[s.DatabaseURL(c.ID)] = c.ID
			}
		}
		if len(batch) < exportBatch {
			break
		}
		last := batch[len(batch)-1]
		after = &store.ChildKey{Position: last.Position, ID: last.ID}
	}
	segs := []segment{{}}
	for _, b := range bs {
		if url := lonelyLink(b); url != "" && links[url] != "" {
			segs = append(segs, segment{at: Placement{After: links[url], Path: "markdown"}})
			delete(links, url) // a second link to the same child is content
			continue
		}
		segs[len(segs)-1].blocks = append(segs[len(segs)-1].blocks, b)
	}
	if len(segs) > 1 {
		segs[0].at = Placement{Start: true}
	}
	return segs, nil
}

// lonelyLink is the address of a paragraph that is nothing but one link, else "".
func lonelyLink(b *blocks.Block) string {
	rt := b.Content.RichText
	if b.Type != "paragraph" || len(b.Children) > 0 || len(rt) != 1 || rt[0].Type != "text" || rt[0].Text == nil || rt[0].Text.Link == nil {
		return ""
	}
	return rt[0].Text.Link.URL
}

// ParseMarkdown turns Markdown into blocks, checked with the limits of a JSON request and
// reported on the path "markdown".
func ParseMarkdown(md string) ([]*blocks.Block, error) {
	bs := markdown.Parse([]byte(md))
	// Markdown nests as deep as its lists and has as many blocks as its text; the 1 MiB body
	// bounds it. The depth, array and count limits are those of a JSON tree.
	lim := blocks.Limits{}
	if err := blocks.Validate(bs, "markdown", nil, lim); err != nil {
		return nil, err
	}
	return bs, nil
}
