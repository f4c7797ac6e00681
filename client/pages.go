package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"strings"
	"time"
)

// PagesService reads and writes pages (folders, mind-map pages and database records included).
type PagesService struct{ c *Client }

// Page is a page object. ETag is the version the answer carried: pass it to IfMatch.
type Page struct {
	Object         string                   `json:"object"`
	ID             string                   `json:"id"`
	PageType       string                   `json:"page_type"` // page, folder or mind_map
	CreatedTime    time.Time                `json:"created_time"`
	LastEditedTime time.Time                `json:"last_edited_time"`
	CreatedBy      UserRef                  `json:"created_by"`
	LastEditedBy   UserRef                  `json:"last_edited_by"`
	Parent         Parent                   `json:"parent"`
	InTrash        bool                     `json:"in_trash"`
	Icon           *Icon                    `json:"icon"`
	Cover          *Icon                    `json:"cover"`
	Properties     map[string]PropertyValue `json:"properties"`
	URL            string                   `json:"url"`
	ETag           string                   `json:"-"`
}

// Title is the plain text of the page's title property (whatever its name in a database).
func (p *Page) Title() string {
	for _, v := range p.Properties {
		if v.Type() == "title" {
			return v.PlainText()
		}
	}
	return ""
}

// PageNode is a light sidebar node, as GET /v2/pages lists them; follow HasChildren with
// ListPagesOptions.ParentID to walk the tree.
type PageNode struct {
	Object         string    `json:"object"`
	ID             string    `json:"id"`
	Type           string    `json:"type"` // page or database
	Title          string    `json:"title"`
	PageType       string    `json:"page_type"` // page, folder, mind_map or database
	HasChildren    bool      `json:"has_children"`
	InTrash        bool      `json:"in_trash"`
	Parent         Parent    `json:"parent"`
	Icon           *Icon     `json:"icon"`
	URL            string    `json:"url"`
	CreatedTime    time.Time `json:"created_time"`
	LastEditedTime time.Time `json:"last_edited_time"`
}

// PageCreate is the body of Pages.Create. Children and Markdown are exclusive.
type PageCreate struct {
	Parent     *Parent                  `json:"parent,omitempty"` // nil: the workspace's top level
	PageType   string                   `json:"page_type,omitempty"`
	Properties map[string]PropertyValue `json:"properties,omitempty"`
	Icon       *Icon                    `json:"icon,omitempty"`
	Cover      *Icon                    `json:"cover,omitempty"`
	Children   []Block                  `json:"children,omitempty"`
	Markdown   string                   `json:"markdown,omitempty"`
}

// PagePatch is the body of Pages.Update: only the fields set change.
type PagePatch struct {
	Properties map[string]PropertyValue
	Icon       *Icon // a new icon; see ClearIcon
	Cover      *Icon
	ClearIcon  bool  // send "icon": null
	ClearCover bool  // send "cover": null
	InTrash    *bool // true trashes, false restores
}

// MarshalJSON writes only what the patch changes, with null for a cleared icon or cover.
func (p PagePatch) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	if p.Properties != nil {
		m["properties"] = p.Properties
	}
	setOrClear(m, "icon", p.Icon, p.ClearIcon)
	setOrClear(m, "cover", p.Cover, p.ClearCover)
	if p.InTrash != nil {
		m["in_trash"] = *p.InTrash
	}
	return json.Marshal(m)
}

func setOrClear(m map[string]any, key string, v *Icon, clear bool) {
	switch {
	case clear:
		m[key] = nil
	case v != nil:
		m[key] = v
	}
}

// PageMove is the body of Pages.Move: the new parent (a page, a folder or the workspace)
// and, optionally, the sibling to follow.
type PageMove struct {
	Parent *Parent `json:"parent"`
	After  string  `json:"after,omitempty"`
}

// ListPagesOptions selects GET /v2/pages: the nodes directly under ParentID (a page or a
// database), or the top of what the token reaches when it is empty.
type ListPagesOptions struct {
	ParentID string
	ListOptions
}

// Create makes a page and answers it.
func (s *PagesService) Create(ctx context.Context, p PageCreate, opts ...CallOption) (*Page, error) {
	return versioned[Page](ctx, s.c, request{method: http.MethodPost, path: "/v2/pages", body: p, opts: opts})
}

// Get answers the page id with its ETag.
func (s *PagesService) Get(ctx context.Context, id string) (*Page, error) {
	return versioned[Page](ctx, s.c, request{method: http.MethodGet, path: "/v2/pages/" + pathID(id)})
}

// Update changes the page's title or properties, icon, cover or trash state. With
// IfMatch(page.ETag) it fails with CodeConflict if the page changed since it was read.
func (s *PagesService) Update(ctx context.Context, id string, p PagePatch, opts ...CallOption) (*Page, error) {
	return versioned[Page](ctx, s.c, request{method: http.MethodPatch, path: "/v2/pages/" + pathID(id), body: p, opts: opts})
}

// Move puts the page under another parent.
func (s *PagesService) Move(ctx context.Context, id string, m PageMove, opts ...CallOption) (*Page, error) {
	return versioned[Page](ctx, s.c, request{method: http.MethodPatch, path: "/v2/pages/" + pathID(id) + "/move", body: m, opts: opts})
}

// Trash puts the page in trash (Update with InTrash false restores it).
func (s *PagesService) Trash(ctx context.Context, id string) (*Page, error) {
	return versioned[Page](ctx, s.c, request{method: http.MethodDelete, path: "/v2/pages/" + pathID(id)})
}

// List yields sidebar nodes in sidebar order.
func (s *PagesService) List(ctx context.Context, opts ListPagesOptions) iter.Seq2[*PageNode, error] {
	return paginate(ctx, opts.StartCursor, func(ctx context.Context, cursor string) (*List[*PageNode], error) {
		q := listQuery(opts.PageSize, cursor)
		if opts.ParentID != "" {
			q.Set("parent_id", opts.ParentID)
		}
		var out List[*PageNode]
		_, err := s.c.do(ctx, request{method: http.MethodGet, path: "/v2/pages", query: q}, &out)
		return ret(&out, err)
	})
}

// Markdown answers the page's content as Markdown.
func (s *PagesService) Markdown(ctx context.Context, id string) (string, error) {
	var out struct {
		Markdown string `json:"markdown"`
	}
	_, err := s.c.do(ctx, request{method: http.MethodGet, path: "/v2/pages/" + pathID(id) + "/content/markdown"}, &out)
	return out.Markdown, err
}

// SetMarkdown replaces the page's content blocks with markdown, atomically, and answers
// the page.
func (s *PagesService) SetMarkdown(ctx context.Context, id, markdown string, opts ...CallOption) (*Page, error) {
	body := map[string]string{"markdown": markdown}
	return versioned[Page](ctx, s.c, request{method: http.MethodPut, path: "/v2/pages/" + pathID(id) + "/content/markdown", body: body, opts: opts})
}

func (x *Page) setETag(etag string) { x.ETag = etag }

// PropertyItem is one property of a page, as Pages.Property answers it: Value for most
// types; for title, rich_text, people and relation, Items with one value per rich-text item,
// person or page (each {"type": T, T: one item}).
type PropertyItem struct {
	Type  string          // the property's type
	Value PropertyValue   // set unless the answer is a list
	Items []PropertyValue // set when the answer is a list
}

// PlainText joins the text of a title or rich_text property's items.
func (p *PropertyItem) PlainText() string {
	var s strings.Builder
	for _, it := range p.Items {
		var rt RichText
		if decode(it[it.Type()], &rt) == nil {
			s.WriteString(PlainText([]RichText{rt}))
		}
	}
	return s.String()
}

// Property answers one property of the page id (a record's, or a page's title), named by id
// or name.
func (s *PagesService) Property(ctx context.Context, id, property string) (*PropertyItem, error) {
	var body json.RawMessage
	path := "/v2/pages/" + pathID(id) + "/properties/" + pathID(property)
	if _, err := s.c.do(ctx, request{method: http.MethodGet, path: path}, &body); err != nil {
		return nil, err
	}
	var head struct {
		Object       string          `json:"object"`
		Type         string          `json:"type"`
		Results      []PropertyValue `json:"results"`
		PropertyItem struct {
			Type string `json:"type"`
		} `json:"property_item"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return nil, err
	}
	if head.Object == "list" {
		return &PropertyItem{Type: head.PropertyItem.Type, Items: head.Results}, nil
	}
	var v PropertyValue
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, err
	}
	return &PropertyItem{Type: head.Type, Value: v}, nil
}
