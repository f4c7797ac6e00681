package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"time"
)

// BlocksService reads and writes blocks, the content of pages.
type BlocksService struct{ c *Client }

// Block is one block. Its content is the object under its type's key, kept as a map so
// that every block type reads and writes; the constructors (Paragraph, Heading, ToDo …)
// build the common ones. Encoded, a Block is its write form {"type": T, T: Content}: the
// read-only fields are not sent back.
type Block struct {
	Object         string         `json:"object"`
	ID             string         `json:"id"`
	Parent         Parent         `json:"parent"`
	CreatedTime    time.Time      `json:"created_time"`
	LastEditedTime time.Time      `json:"last_edited_time"`
	CreatedBy      UserRef        `json:"created_by"`
	LastEditedBy   UserRef        `json:"last_edited_by"`
	HasChildren    bool           `json:"has_children"`
	InTrash        bool           `json:"in_trash"`
	Type           string         `json:"type"`
	Content        map[string]any `json:"-"` // the object under the key Type
	// ETag is the version Get, Update and Delete answered: pass it to IfMatch. Empty in lists.
	ETag string `json:"-"`
}

// MarshalJSON writes {"type": T, T: Content}.
func (b Block) MarshalJSON() ([]byte, error) {
	if b.Type == "" {
		return nil, fmt.Errorf("quire: a block needs a Type")
	}
	content := b.Content
	if content == nil {
		content = map[string]any{}
	}
	return json.Marshal(map[string]any{"type": b.Type, b.Type: content})
}

// UnmarshalJSON reads a block as the API answers it.
func (b *Block) UnmarshalJSON(data []byte) error {
	type fields Block // the same fields without the methods, so decoding does not recurse
	var f fields
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	*b = Block(f)
	if raw, ok := all[f.Type]; ok {
		return json.Unmarshal(raw, &b.Content)
	}
	return nil
}

// RichText decodes the block's rich_text (paragraphs, headings, list items, to-dos, code …).
func (b *Block) RichText() []RichText {
	var items []RichText
	_ = decode(b.Content["rich_text"], &items)
	return items
}

// WithChildren returns b with children nested under it (list items, to-dos, toggles,
// quotes, callouts, toggleable headings …).
func (b Block) WithChildren(children ...Block) Block {
	content := make(map[string]any, len(b.Content)+1)
	for k, v := range b.Content {
		content[k] = v
	}
	content["children"] = children
	b.Content = content
	return b
}

func textBlock(typ string, rt []RichText, extra ...any) Block {
	if rt == nil {
		rt = []RichText{} // an empty paragraph, not rich_text: null
	}
	content := map[string]any{"rich_text": rt}
	for i := 0; i+1 < len(extra); i += 2 {
		content[extra[i].(string)] = extra[i+1]
	}
	return Block{Type: typ, Content: content}
}

// Paragraph is a paragraph of rich text.
func Paragraph(rt ...RichText) Block { return textBlock("paragraph", rt) }

// Heading is a heading of level 1–3.
func Heading(level int, rt ...RichText) Block {
	return textBlock(fmt.Sprintf("heading_%d", min(max(level, 1), 3)), rt)
}

// ToDo is a to-do item.
func ToDo(checked bool, rt ...RichText) Block { return textBlock("to_do", rt, "checked", checked) }

// BulletedItem is a bulleted list item.
func BulletedItem(rt ...RichText) Block { return textBlock("bulleted_list_item", rt) }

// NumberedItem is a numbered list item.
func NumberedItem(rt ...RichText) Block { return textBlock("numbered_list_item", rt) }

// Quote is a quote.
func Quote(rt ...RichText) Block { return textBlock("quote", rt) }

// Code is a code block in language (Notion's names; "plain text" by default).
func Code(language, code string) Block { return textBlock("code", Text(code), "language", language) }

// FileBlock is a file block showing an upload made with Files.UploadURL.
func FileBlock(uploadID string) Block {
	return Block{Type: "file", Content: map[string]any{"type": "file_upload", "file_upload": FileUploadRef{ID: uploadID}}}
}

// AppendRequest is the body of Blocks.Append: children go last unless After (a child's
// id) or Position ("start") says otherwise.
type AppendRequest struct {
	Children []Block `json:"children"`
	After    string  `json:"after,omitempty"`
	Position string  `json:"-"` // "start" or "end"
}

// MarshalJSON writes position as the API's {"type": …}.
func (a AppendRequest) MarshalJSON() ([]byte, error) {
	m := map[string]any{"children": a.Children}
	if a.After != "" {
		m["after"] = a.After
	}
	if a.Position != "" {
		m["position"] = map[string]string{"type": a.Position}
	}
	return json.Marshal(m)
}

// BlockPatch is the body of Blocks.Update: Content holds only the fields to change of the
// block's type (arrays are replaced whole); InTrash trashes or restores.
type BlockPatch struct {
	Type    string
	Content map[string]any
	InTrash *bool
}

// MarshalJSON writes {T: Content, "in_trash"?}.
func (p BlockPatch) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	if p.Type != "" {
		m[p.Type] = p.Content
	}
	if p.InTrash != nil {
		m["in_trash"] = *p.InTrash
	}
	return json.Marshal(m)
}

// Get answers the block id with its ETag.
func (s *BlocksService) Get(ctx context.Context, id string) (*Block, error) {
	return versioned[Block](ctx, s.c, request{method: http.MethodGet, path: "/v2/blocks/" + pathID(id)})
}

// Children yields the children of a block or a page (a page id lists its content), in
// document order.
func (s *BlocksService) Children(ctx context.Context, id string, opts ListOptions) iter.Seq2[*Block, error] {
	return paginate(ctx, opts.StartCursor, func(ctx context.Context, cursor string) (*List[*Block], error) {
		var out List[*Block]
		_, err := s.c.do(ctx, request{method: http.MethodGet, path: "/v2/blocks/" + pathID(id) + "/children", query: listQuery(opts.PageSize, cursor)}, &out)
		return ret(&out, err)
	})
}

// Append adds blocks under a block or page and answers the created top-level blocks.
func (s *BlocksService) Append(ctx context.Context, id string, a AppendRequest, opts ...CallOption) ([]*Block, error) {
	var out List[*Block]
	_, err := s.c.do(ctx, request{method: http.MethodPatch, path: "/v2/blocks/" + pathID(id) + "/children", body: a, opts: opts}, &out)
	if err != nil {
		return nil, err
	}
	return out.Results, nil
}

// Update changes a block. With IfMatch(block.ETag) it fails with CodeConflict if the block
// changed since it was read.
func (s *BlocksService) Update(ctx context.Context, id string, p BlockPatch, opts ...CallOption) (*Block, error) {
	return versioned[Block](ctx, s.c, request{method: http.MethodPatch, path: "/v2/blocks/" + pathID(id), body: p, opts: opts})
}

// Delete puts a block in trash and answers it.
func (s *BlocksService) Delete(ctx context.Context, id string) (*Block, error) {
	return versioned[Block](ctx, s.c, request{method: http.MethodDelete, path: "/v2/blocks/" + pathID(id)})
}

func (x *Block) setETag(etag string) { x.ETag = etag }
