package service

import (
	"context"
	"encoding/json"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/mindmap"
	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// NewPage is a validated POST /v2/pages body.
type NewPage struct {
	Parent   Parent
	PageType string
	Title    blocks.RichText
	Icon     json.RawMessage // canonical JSON, nil when none
	Cover    json.RawMessage
	Children []*blocks.Block
	// MindMap is the tree and settings of a mind map page; nil gives a root that reads like the
	// title and default settings.
	MindMap *mindmap.New
	// Properties are a record's raw property values (a database parent), checked against the
	// database's schema when the record is created.
	Properties any
}

// PagePatch is a validated PATCH /v2/pages/:id body; nil fields are left alone.
type PagePatch struct {
	Title   *blocks.RichText
	Icon    *json.RawMessage // set to nil JSON to clear
	Cover   *json.RawMessage
	InTrash *bool
	IfMatch string
	// Properties are the raw properties; a record's are checked against its database's
	// schema, any other page's were decoded into Title (titleErr holds their problems).
	Properties any
	titleErr   error
}

var pageTypes = map[string]bool{quire.PageTypePage: true, quire.PageTypeFolder: true, quire.PageTypeMindMap: true}

// DecodeNewPage validates a POST /v2/pages body, reporting every problem with its path.
// markdown, when given instead of children, is parsed by the caller into Children.
func DecodeNewPage(body map[string]any) (NewPage, string, error) {
	var p quire.Problems
	var out NewPage
	var md string
	for k := range body {
		switch k {
		case "parent", "page_type", "properties", "icon", "cover", "children", "markdown":
		default:
			p.Add(fieldName(k), quire.ReasonUnknownField, "A page has no field "+k+".")
		}
	}
	out.Parent = DecodeNewParent(&p, "parent", body)
	out.PageType = quire.PageTypePage
	if v, ok := body["page_type"]; ok {
		s, isStr := v.(string)
		switch {
		case !isStr:
			p.Add("page_type", quire.ReasonInvalidType, "page_type must be a string.")
		case !pageTypes[s]:
			p.Add("page_type", quire.ReasonInvalidValue, "page_type is one of page, folder, mind_map.")
		default:
			out.PageType = s
		}
	}
	if v, ok := body["properties"]; ok && out.Parent.Type == quire.ParentDatabase {
		if _, isObj := v.(map[string]any); !isObj && v != nil {
			p.Add("properties", quire.ReasonInvalidType, "properties must be an object.")
		}
		out.Properties = v
	} else if ok {
		if t := decodeTitleProperties(&p, "properties", v); t != nil {
			out.Title = *t
		}
	}
	out.Icon = decodeIcon(&p, "icon", body, true)
	out.Cover = decodeIcon(&p, "cover", body, false)
	_, hasChildren := body["children"]
	if v, ok := body["markdown"]; ok {
		s, isStr := v.(string)
		switch {
		case !isStr:
			p.Add("markdown", quire.ReasonInvalidType, "markdown must be a string.")
		case hasChildren:
			p.Add("markdown", quire.ReasonInvalidValue, "Send children or markdown, not both.")
		default:
			md = s
		}
	}
	if hasChildren {
		if out.PageType == quire.PageTypeFolder {
			p.Add("children", quire.ReasonInvalidValue, "A folder holds pages and databases only.")
		} else if out.PageType == quire.PageTypeMindMap {
			p.Add("children", quire.ReasonInvalidValue, "A mind map holds nodes; write them through /v2/mind-maps.")
		} else if bs, err := blocks.DecodeValue(body["children"], "children", nil); err != nil {
			mergeProblems(&p, err)
		} else {
			out.Children = bs
		}
	}
	if md != "" && out.PageType == quire.PageTypeFolder {
		p.Add("markdown", quire.ReasonInvalidValue, "A folder holds pages and databases only.")
	}
	if md != "" && out.PageType == quire.PageTypeMindMap {
		p.Add("markdown", quire.ReasonInvalidValue, "A mind map holds nodes; write them through /v2/mind-maps.")
	}
	return out, md, p.Err()
}

// DecodeMove validates a PATCH /v2/pages/:id/move body: {parent, after?}.
func DecodeMove(body map[string]any) (Parent, string, error) {
	var pr quire.Problems
	to := DecodeParent(&pr, "parent", body["parent"])
	after := ""
	for k, v := range body {
		switch k {
		case "parent":
		case "after":
			s, ok := v.(string)
			if !ok || !quire.ValidID(s) {
				pr.Add("after", quire.ReasonInvalidValue, "after must be a page id.")
			}
			after = s
		default:
			pr.Add(fieldName(k), quire.ReasonUnknownField, "A move has no field "+k+".")
		}
	}
	return to, after, pr.Err()
}

// DecodePagePatch validates a PATCH /v2/pages/:id body.
func DecodePagePatch(body map[string]any) (PagePatch, error) {
	var p quire.Problems
	var out PagePatch
	for k, v := range body {
		switch k {
		case "properties":
			// Whether the page is a record is known only once it is read: a body that is not
			// a valid title-only one is kept for the record's schema to judge.
			if _, isObj := v.(map[string]any); !isObj {
				p.Add("properties", quire.ReasonInvalidType, "properties must be an object.")
				continue
			}
			var tp quire.Problems
			out.Title = decodeTitleProperties(&tp, "properties", v)
			out.Properties, out.titleErr = v, tp.Err()
		case "icon", "cover":
			raw := decodeIcon(&p, k, body, k == "icon")
			if k == "icon" {
				out.Icon = &raw
			} else {
				out.Cover = &raw
			}
		case "in_trash", "archived":
			b, ok := v.(bool)
			if !ok {
				p.Add(k, quire.ReasonInvalidType, k+" must be a boolean.")
				continue
			}
			out.InTrash = &b
		default:
			p.Add(fieldName(k), quire.ReasonUnknownField, "A page update has no field "+k+".")
		}
	}
	return out, p.Err()
}

// decodeTitleProperties reads the properties of a page outside a database: only its title,
// under the key "title", as {"title":[…]}, {"type":"title","title":[…]} or a bare array.
func decodeTitleProperties(p *quire.Problems, path string, v any) *blocks.RichText {
	m, ok := v.(map[string]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "properties must be an object.")
		return nil
	}
	var out *blocks.RichText
	for k, pv := range m {
		kp := path + "." + fieldName(k)
		if k != "title" {
			p.Add(kp, quire.ReasonUnknownField, "A page outside a database has only the title property.")
			continue
		}
		switch t := pv.(type) {
		case []any:
			rt := blocks.DecodeRichText(p, kp, t)
			out = &rt
		case map[string]any:
			for f := range t {
				if f != "title" && f != "type" && f != "id" {
					p.Add(kp+"."+fieldName(f), quire.ReasonUnknownField, "The title property holds title only.")
				}
			}
			if typ, ok := t["type"]; ok && typ != "title" {
				p.Add(kp+".type", quire.ReasonInvalidValue, "The title property's type is title.")
			}
			if id, ok := t["id"]; ok && id != "title" {
				p.Add(kp+".id", quire.ReasonInvalidValue, "The title property's id is title.")
			}
			rt := blocks.DecodeRichText(p, kp+".title", t["title"])
			out = &rt
		default:
			p.Add(kp, quire.ReasonInvalidType, "title must be an object or an array of rich text.")
		}
	}
	return out
}

// decodeIcon reads body[key] as a page icon (emoji allowed) or cover: canonical JSON, or nil
// for null or absent.
func decodeIcon(p *quire.Problems, key string, body map[string]any, emoji bool) json.RawMessage {
	v, ok := body[key]
	if !ok || v == nil {
		return nil
	}
	return blocks.DecodePageIcon(p, key, v, emoji)
}

// fieldName is a body key as a path segment: an empty key would leave no trace, so it reads "".
func fieldName(k string) string {
	if k == "" {
		return `""`
	}
	return k
}

// mergeProblems adds the details of a validation error to p (anything else keeps its first
// message).
func mergeProblems(p *quire.Problems, err error) {
	if qe, ok := quire.AsError(err); ok {
		for _, d := range qe.Details {
			p.Add(d.Path, d.Reason, qe.Message)
		}
		return
	}
	p.Add("", quire.ReasonInvalidValue, err.Error())
}

// Page returns a page the caller reaches (trashed pages too), or not_found.
func (s *Service) Page(ctx context.Context, p *quire.Principal, id string) (*quire.Node, error) {
	if err := s.Reach(ctx, p, id, "page "+id); err != nil {
		return nil, err
	}
	n, err := s.store.Node(ctx, p.WorkspaceID(), id)
	if err != nil {
		return nil, err
	}
	if n.Object != quire.ObjectPage {
		return nil, quire.NotFound("page " + id)
	}
	return n, s.RenderRecords(ctx, []*quire.Node{n}, nil)
}

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
		if parent != nil {
			// Locks the parent's row first (PostgreSQL): its children are placed one at a time.
			if err := tx.TouchNode(ctx, parent.ID, now, p.Token.OwnerID); err != nil {
				return err
			}
		}
		if parent == nil {
			if n.Position, err = s.topLevelEnd(ctx, tx, p.WorkspaceID()); err != nil {
				return err
			}
		} else {
			keys, err := positions(ctx, tx, p.WorkspaceID(), parent.ID, Placement{}, 1)
			if err != nil {
				return err
			}
			n.Position = keys[0]
			if err := s.insertChildPageBlock(ctx, tx, n, parent); err != nil {
				return err
			}
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

// placeUnder checks that new content may go under parent and returns the parent node (nil for
// the workspace). Only workspace-scoped tokens create top-level content (contract §2).
func (s *Service) placeUnder(ctx context.Context, tx *store.Tx, p *quire.Principal, parent Parent) (*quire.Node, error) {
	if parent.Type == quire.ParentWorkspace {
		if err := RequireWorkspaceScoped(p); err != nil {
			return nil, quire.Forbidden("Only a workspace-scoped token creates top-level content.")
		}
		return nil, nil
	}
	if err := s.reachTx(ctx, tx, p, parent.ID, "parent "+parent.ID); err != nil {
		return nil, err
	}
	n, err := tx.Node(ctx, p.WorkspaceID(), parent.ID)
	if err != nil {
		return nil, err
	}
	wantObject := quire.ObjectPage
	if parent.Type == quire.ParentDatabase {
		wantObject = quire.ObjectDatabase
	}
	if n.Object != wantObject {
		return nil, quire.NotFound("parent " + parent.ID)
	}
	if n.Hidden() {
		return nil, quire.Invalid(parent.idPath(), quire.ReasonArchived, "The parent is in trash; restore it first.")
	}
	if n.PageType == quire.PageTypeMindMap {
		return nil, quire.Invalid(parent.idPath(), quire.ReasonInvalidValue, "A mind map holds nodes, not pages.")
	}
	return n, nil
}

// topLevelEnd is a position after every top-level page and database of the workspace.
func (s *Service) topLevelEnd(ctx context.Context, tx *store.Tx, ws string) (string, error) {
	if err := tx.LockTopLevel(ctx, ws); err != nil {
		return "", err
	}
	last, err := tx.LastTopLevelPosition(ctx, ws)
	if err != nil {
		return "", err
	}
	return order.Between(last, "")
}

// insertChildPageBlock gives node n its place among parent's blocks: a child_page (or
// child_database) block with n's own id, at n.Position.
func (s *Service) insertChildPageBlock(ctx context.Context, tx *store.Tx, n, parent *quire.Node) error {
	typ := "child_page"
	if n.Object == quire.ObjectDatabase {
		typ = "child_database"
	}
	b := &blocks.Block{Type: typ, Content: blocks.Content{Title: n.TitlePlain}}
	return tx.InsertBlocks(ctx, []*quire.Block{{
		ID: n.ID, WorkspaceID: n.WorkspaceID, PageID: parent.ID, ParentID: parent.ID, Position: n.Position,
		Type: typ, Content: blocks.MarshalContent(b), InTrash: n.InTrash, Version: 1,
		CreatedMs: n.CreatedMs, CreatedBy: n.CreatedBy, EditedMs: n.EditedMs, EditedBy: n.EditedBy,
	}})
}

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

func childPageContent(n *quire.Node) []byte {
	typ := "child_page"
	if n.Object == quire.ObjectDatabase {
		typ = "child_database"
	}
	return blocks.MarshalContent(&blocks.Block{Type: typ, Content: blocks.Content{Title: n.TitlePlain}})
}

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

// topLevelAfter is a position right after top-level node after.
func (s *Service) topLevelAfter(ctx context.Context, tx *store.Tx, ws, after string) (string, error) {
	if err := tx.LockTopLevel(ctx, ws); err != nil {
		return "", err
	}
	sib, err := tx.Node(ctx, ws, after)
	if err != nil || sib.ParentType != quire.ParentWorkspace {
		return "", quire.Invalid("after", quire.ReasonInvalidValue, "after must name a top-level page or database.")
	}
	next, err := tx.NextTopLevelPosition(ctx, ws, sib.Position)
	if err != nil {
		return "", err
	}
	return order.Between(sib.Position, next)
}

func marshalRichText(rt blocks.RichText) []byte {
	return blocks.AppendRichText(nil, rt)
}
