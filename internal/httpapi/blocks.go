package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// blockObject is a block as the API shows it: the common fields and a field named by its type
// holding the type's content, spliced in from the stored canonical JSON (blocks_json.go). It
// points at the block rather than copying its fields: a page of 100 children built a 15 KB
// slice of copies, and two time strings per block, only to write them out once.
type blockObject struct {
	b          *quire.Block
	parentType string // quire.ParentPage, ParentDatabase or ParentBlock
}

// MarshalJSON writes the block with its type's field (blocks_json.go).
func (b blockObject) MarshalJSON() ([]byte, error) {
	out, _ := b.appendJSON(nil)
	return out, nil
}

// Schema describes a block in the document, one variant per block type (schema_blocks.go).
func (blockObject) Schema(r huma.Registry) *huma.Schema { return blockReadSchema(r) }

// blockDoc is the part of a block every type shares.
type blockDoc struct {
	Object         string       `json:"object" enum:"block"`
	ID             string       `json:"id" format:"uuid"`
	Parent         parentObject `json:"parent"`
	CreatedTime    string       `json:"created_time" format:"date-time"`
	LastEditedTime string       `json:"last_edited_time" format:"date-time"`
	CreatedBy      userRef      `json:"created_by"`
	LastEditedBy   userRef      `json:"last_edited_by"`
	HasChildren    bool         `json:"has_children"`
	InTrash        bool         `json:"in_trash"`
	Type           string       `json:"type" doc:"paragraph, heading_1, … A field of this name holds the type's content."`
}

func newBlockObject(b *quire.Block, page *quire.Node) blockObject {
	ptype := b.ParentType(page.Object)
	if b.Type == "child_page" || b.Type == "child_database" {
		ptype = quire.ParentPage // a child page's block lives in its parent page's content
	}
	return blockObject{b: b, parentType: ptype}
}

type blockOutput struct {
	ETag string `header:"ETag" doc:"Weak validator of the block's version; send it back in If-Match."`
	Body blockObject
}

func newBlockOutput(b *quire.Block, page *quire.Node) *blockOutput {
	return &blockOutput{ETag: etag(b.Version), Body: newBlockObject(b, page)}
}

type blockListOutput struct{ Body list[blockObject] }

// newBlockList is blocks of page (or of a block of it), with the cursor of the next page.
func newBlockList(bs []*quire.Block, page *quire.Node, next string) *blockListOutput {
	return &blockListOutput{Body: listOf(bs, next, func(b *quire.Block) blockObject { return newBlockObject(b, page) })}
}

type blockIDInput struct {
	BlockID string `path:"block_id" format:"uuid"`
}

type childrenInput struct {
	BlockID string `path:"block_id" format:"uuid" doc:"A block, or a page (its content)."`
	PageParams
}

type appendInput struct {
	BlockID string `path:"block_id" format:"uuid" doc:"A block, or a page (appends to its content)."`
	Body    reqBody[appendBlockChildrenRequest]
}

// updateBlockRequest documents a block update: its fields depend on the block's type.
type updateBlockRequest struct{}

// Schema describes the body in the document (schema_blocks.go).
func (updateBlockRequest) Schema(r huma.Registry) *huma.Schema { return blockUpdateSchema(r) }

type patchBlockInput struct {
	BlockID string `path:"block_id" format:"uuid"`
	IfMatch string `header:"If-Match" doc:"The block's ETag; 409 conflict when it changed since."`
	Body    reqBody[updateBlockRequest]
}

func (s *Server) registerBlocks() {
	read := route{scopes: []quire.Scope{quire.BlocksRead}}
	write := route{scopes: []quire.Scope{quire.BlocksWrite}}
	register(s, op("retrieve-block", http.MethodGet, "/v2/blocks/{block_id}", "Blocks",
		"Retrieve a block",
		""), read, s.getBlock)
	register(s, op("list-block-children", http.MethodGet, "/v2/blocks/{block_id}/children", "Blocks",
		"List a block's children",
		"The children of a block, or the content of a page, in order; blocks in trash are left out."),
		route{scopes: read.scopes, node: "block_id", children: true}, s.listChildren) // a page's read and its children with the token
	register(s, op("append-block-children", http.MethodPatch, "/v2/blocks/{block_id}/children", "Blocks",
		"Append block children",
		"Appends blocks (with nested children) to a block or page, atomically, and returns the created top-level blocks."),
		route{scopes: write.scopes, node: "block_id"}, s.appendChildren) // a page's read with the token, as the listing
	register(s, op("update-block", http.MethodPatch, "/v2/blocks/{block_id}", "Blocks",
		"Update a block",
		"Changes the content of the block's type (the type itself is fixed), or trashes or restores it."), write, s.patchBlock)
	registerHidden(s, op("delete-block", http.MethodDelete, "/v2/blocks/{block_id}", "Blocks",
		"Trash a block",
		""), write, s.trashBlock)
}

// getBlock answers GET /v2/blocks/{block_id}.
func (s *Server) getBlock(ctx context.Context, in *blockIDInput) (*blockOutput, error) {
	b, page, err := s.svc.Block(ctx, principal(ctx), in.BlockID)
	if err != nil {
		return nil, err
	}
	return newBlockOutput(b, page), nil
}

// listChildren answers GET /v2/blocks/{block_id}/children.
func (s *Server) listChildren(ctx context.Context, in *childrenInput) (*blockListOutput, error) {
	pg, c, err := s.svc.Children(ctx, principal(ctx), in.BlockID, in.StartCursor, in.PageSize)
	if err != nil {
		return nil, err
	}
	return newBlockList(pg.Items, c.Page, pg.NextCursor), nil
}

// appendChildren answers PATCH /v2/blocks/{block_id}/children.
func (s *Server) appendChildren(ctx context.Context, in *appendInput) (*blockListOutput, error) {
	if a, ok := blocks.ReadAppend(in.Body.bytes()); ok { // the common body, read straight into blocks
		created, c, err := s.svc.AppendChildren(ctx, principal(ctx), in.BlockID, a, service.Placement{})
		if err != nil {
			return nil, err
		}
		return newBlockList(created, c.Page, ""), nil
	}
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	pl, err := service.DecodePlacement(body)
	if err != nil {
		return nil, err
	}
	if _, ok := body["children"]; !ok {
		return nil, quire.Invalid("children", quire.ReasonRequired, "children is required.")
	}
	created, c, err := s.svc.AppendChildren(ctx, principal(ctx), in.BlockID, body["children"], pl)
	if err != nil {
		return nil, err
	}
	return newBlockList(created, c.Page, ""), nil
}

// patchBlock answers PATCH /v2/blocks/{block_id}.
func (s *Server) patchBlock(ctx context.Context, in *patchBlockInput) (*blockOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	b, page, err := s.svc.PatchBlock(ctx, principal(ctx), in.BlockID, body, in.IfMatch)
	if err != nil {
		return nil, err
	}
	return newBlockOutput(b, page), nil
}

// trashBlock answers DELETE /v2/blocks/{block_id}.
func (s *Server) trashBlock(ctx context.Context, in *blockIDInput) (*blockOutput, error) {
	b, page, err := s.svc.TrashBlock(ctx, principal(ctx), in.BlockID)
	if err != nil {
		return nil, err
	}
	return newBlockOutput(b, page), nil
}
