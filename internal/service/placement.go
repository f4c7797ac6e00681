package service

import (
	"context"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// Placement says where new blocks go among a parent's children: at the end (the zero value),
// at the start, or right after or right before one sibling.
type Placement struct {
	Start  bool
	After  string // a block id; "" unless placing after it
	Before string // a block id; "" unless placing before it
	// Path names the request field that chose the placement, for errors ("after", "before",
	// "position.after_block.id").
	Path string
}

// positions returns n ascending position keys for new children of parent at pl.
func positions(ctx context.Context, tx *store.Tx, ws, parent string, pl Placement, n int) ([]string, error) {
	var lo, hi string
	var err error
	switch {
	case pl.After != "" || pl.Before != "":
		id := pl.After
		if id == "" {
			id = pl.Before
		}
		sib, err := tx.Block(ctx, ws, id)
		if err != nil || sib.ParentID != parent || sib.InTrash {
			return nil, quire.Invalid(pl.Path, quire.ReasonInvalidValue, pl.Path+" must name a child of the parent block that is not in trash.")
		}
		if pl.After != "" {
			lo = sib.Position
			hi, err = tx.NextPosition(ctx, parent, lo)
		} else {
			hi = sib.Position
			lo, err = tx.PrevPosition(ctx, parent, hi)
		}
		if err != nil {
			return nil, err
		}
	case pl.Start:
		if hi, err = tx.FirstChildPosition(ctx, parent); err != nil {
			return nil, err
		}
	default:
		if lo, err = tx.LastChildPosition(ctx, parent); err != nil {
			return nil, err
		}
	}
	return order.NBetween(lo, hi, n)
}

// PositionShape is an append's position, Notion's form of after (DecodePlacement).
var PositionShape = jsonbody.Body{Noun: "position", Fields: []jsonbody.Field{
	{Name: "type", Type: "string", Required: true, Enum: []string{"start", "end", "after_block"}},
	{Name: "after_block", Shape: "FileUploadRef"},
}}

// afterBlockID is the path of the block a position of type after_block names.
const afterBlockID = "position.after_block.id"

// DecodePlacement reads after or before (the original service's), or Notion's newer position
// object, of an append body. after and before may be null, which is the end (the original's
// docs send "after": null); at most one of after, before and position says where.
func DecodePlacement(body map[string]any) (Placement, error) {
	var pr quire.Problems
	var pl Placement
	id := func(path string, v any) string {
		s, ok := v.(string)
		switch {
		case v == nil && path == afterBlockID:
			pr.Add(path, quire.ReasonRequired, path+" is required.")
		case !ok || !quire.ValidID(s):
			pr.Add(path, quire.ReasonInvalidValue, path+" must be a block id.")
		}
		return s
	}
	for _, k := range jsonbody.SortedKeys(body) {
		if !AppendBody.Takes(&pr, k) {
			continue
		}
		v := body[k]
		switch k {
		case "children":
		case "after":
			if v != nil { // null, as the original service's own example sends it: the end
				pl.After, pl.Path = id("after", v), "after"
			}
		case "before":
			if v != nil { // null mirrors after: null
				pl.Before, pl.Path = id("before", v), "before"
			}
		case "position":
			m, ok := v.(map[string]any)
			if !ok {
				pr.Add("position", quire.ReasonInvalidType, "position must be an object.")
				continue
			}
			PositionShape.UnknownAt(&pr, "position", m)
			switch m["type"] {
			case "start":
				pl.Start = true
			case "end":
			case "after_block":
				ab, ok := m["after_block"].(map[string]any)
				if _, present := m["after_block"]; present && !ok {
					pr.Add("position.after_block", quire.ReasonInvalidType, `position.after_block is {"id": …}.`)
					continue
				}
				jsonbody.Unknown(&pr, "position.after_block", ab, "id")
				pl.After, pl.Path = id(afterBlockID, ab["id"]), afterBlockID
			case nil:
				pr.Add("position.type", quire.ReasonRequired, "position.type is required: start, end or after_block.")
			default:
				pr.Add("position.type", quire.ReasonInvalidValue, "position.type is start, end or after_block.")
			}
		}
	}
	_, position := body["position"]
	switch {
	case body["after"] != nil && body["before"] != nil:
		pr.Add("before", quire.ReasonInvalidValue, "Send after or before, not both.")
	case position && (body["after"] != nil || body["before"] != nil):
		pr.Add("position", quire.ReasonInvalidValue, "Send after, before or position, not two of them.")
	}
	return pl, pr.Err()
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
	return tx.InsertBlocks(ctx, []*quire.Block{{
		ID: n.ID, WorkspaceID: n.WorkspaceID, PageID: parent.ID, ParentID: parent.ID, Position: n.Position,
		Type: typ, Content: childPageContent(n), InTrash: n.InTrash, Version: 1,
		CreatedMs: n.CreatedMs, CreatedBy: n.CreatedBy, EditedMs: n.EditedMs, EditedBy: n.EditedBy,
	}})
}

// placeLast gives new node n its position after the other children of parent (the workspace
// when nil) and, under a page, its child_page (or child_database) block. The parent's row is
// touched first, which locks it (PostgreSQL): a parent's children are placed one at a time.
func (s *Service) placeLast(ctx context.Context, tx *store.Tx, p *quire.Principal, n, parent *quire.Node) error {
	if parent == nil {
		var err error
		n.Position, err = s.topLevelEnd(ctx, tx, p.WorkspaceID())
		return err
	}
	if err := tx.TouchNode(ctx, parent.ID, n.CreatedMs, p.Token.OwnerID); err != nil {
		return err
	}
	keys, err := positions(ctx, tx, p.WorkspaceID(), parent.ID, Placement{}, 1)
	if err != nil {
		return err
	}
	n.Position = keys[0]
	return s.insertChildPageBlock(ctx, tx, n, parent)
}

// childPageContent is the content of node n's child_page (or child_database) block.
func childPageContent(n *quire.Node) []byte {
	typ := "child_page"
	if n.Object == quire.ObjectDatabase {
		typ = "child_database"
	}
	return blocks.MarshalContent(&blocks.Block{Type: typ, Content: blocks.Content{Title: n.TitlePlain}})
}
