package client

import (
	"context"
	"net/http"
	"time"
)

// MindMapsService reads and edits mind maps (pages of page_type mind_map holding nodes).
type MindMapsService struct{ c *Client }

// MindMap is a whole mind map; every answer, an edit's included, carries the full tree.
type MindMap struct {
	Object         string          `json:"object"`
	ID             string          `json:"id"`
	Title          []RichText      `json:"title"`
	Parent         Parent          `json:"parent"`
	Root           *MindNode       `json:"root"`
	Settings       MindMapSettings `json:"settings"`
	NodeCount      int             `json:"node_count"`
	CreatedTime    time.Time       `json:"created_time"`
	LastEditedTime time.Time       `json:"last_edited_time"`
	InTrash        bool            `json:"in_trash"`
	URL            string          `json:"url"`
	ETag           string          `json:"-"`
}

// MindNode is a node with its subtree. On input every field may be left out; an ID chosen
// by the client lets later edits of the same request name the node.
type MindNode struct {
	ID        string     `json:"id,omitempty"`
	Text      string     `json:"text"`
	Color     string     `json:"color,omitempty"`
	Collapsed bool       `json:"collapsed,omitempty"`
	Children  []MindNode `json:"children,omitempty"`
}

// MindMapSettings are the layout (right, left, both, tree, org) and theme.
type MindMapSettings struct {
	Layout string `json:"layout,omitempty"`
	Theme  string `json:"theme,omitempty"`
}

// MindMapCreate is the body of MindMaps.Create; without Root the root's text is the title.
type MindMapCreate struct {
	Parent   *Parent          `json:"parent,omitempty"`
	Title    string           `json:"title,omitempty"`
	Root     *MindNode        `json:"root,omitempty"`
	Settings *MindMapSettings `json:"settings,omitempty"`
}

// MindMapEdit is one edit: Op add {ParentID, Node, After?}, update {NodeID, Text?, Color?,
// Collapsed?}, move {NodeID, ParentID, After?} or delete {NodeID}. The constructors
// AddNode, UpdateNodeText, MoveNode and DeleteNode build them.
type MindMapEdit struct {
	Op        string    `json:"op"`
	NodeID    string    `json:"node_id,omitempty"`
	ParentID  string    `json:"parent_id,omitempty"`
	Node      *MindNode `json:"node,omitempty"`
	After     string    `json:"after,omitempty"`
	Text      *string   `json:"text,omitempty"`
	Color     string    `json:"color,omitempty"`
	Collapsed *bool     `json:"collapsed,omitempty"`
}

// AddNode adds node (with its subtree) last under parentID.
func AddNode(parentID string, node MindNode) MindMapEdit {
	return MindMapEdit{Op: "add", ParentID: parentID, Node: &node}
}

// UpdateNodeText sets a node's text.
func UpdateNodeText(nodeID, text string) MindMapEdit {
	return MindMapEdit{Op: "update", NodeID: nodeID, Text: &text}
}

// MoveNode moves a node with its subtree last under parentID.
func MoveNode(nodeID, parentID string) MindMapEdit {
	return MindMapEdit{Op: "move", NodeID: nodeID, ParentID: parentID}
}

// DeleteNode removes a node with its subtree.
func DeleteNode(nodeID string) MindMapEdit { return MindMapEdit{Op: "delete", NodeID: nodeID} }

// MindMapPatch is the body of MindMaps.Update: edits apply in order, then title and
// settings, all in one transaction.
type MindMapPatch struct {
	Edits    []MindMapEdit    `json:"edits,omitempty"`
	Title    string           `json:"title,omitempty"`
	Settings *MindMapSettings `json:"settings,omitempty"`
}

// Create makes a mind map.
func (s *MindMapsService) Create(ctx context.Context, m MindMapCreate, opts ...CallOption) (*MindMap, error) {
	return versioned[MindMap](ctx, s.c, request{method: http.MethodPost, path: "/v2/mind-maps", body: m, opts: opts})
}

// Get answers the whole mind map with its ETag.
func (s *MindMapsService) Get(ctx context.Context, id string) (*MindMap, error) {
	return versioned[MindMap](ctx, s.c, request{method: http.MethodGet, path: "/v2/mind-maps/" + pathID(id)})
}

// Update applies a patch atomically and answers the whole map.
func (s *MindMapsService) Update(ctx context.Context, id string, p MindMapPatch, opts ...CallOption) (*MindMap, error) {
	return versioned[MindMap](ctx, s.c, request{method: http.MethodPatch, path: "/v2/mind-maps/" + pathID(id), body: p, opts: opts})
}

func (x *MindMap) setETag(etag string) { x.ETag = etag }
