package quire

import "encoding/json"

// Node kinds (Node.Object) and page types (Node.PageType).
const (
	ObjectPage     = "page"
	ObjectDatabase = "database"

	PageTypePage     = "page"
	PageTypeFolder   = "folder"
	PageTypeMindMap  = "mind_map"
	PageTypeDatabase = "database" // the PageType of a database node
)

// Parent types of nodes and blocks.
const (
	ParentWorkspace = "workspace"
	ParentPage      = "page_id"
	ParentDatabase  = "database_id"
	ParentBlock     = "block_id"
)

// Node is one entry of a workspace's tree: a page (a plain page, a folder, a mind map, or a
// record of a database) or a database. JSON fields hold the canonical JSON of the API's shapes.
type Node struct {
	ID          string
	WorkspaceID string
	Object      string // ObjectPage or ObjectDatabase
	PageType    string
	ParentType  string // ParentWorkspace, ParentPage or ParentDatabase
	ParentID    string // "" under the workspace
	Position    string // order among siblings (package order)
	Title       json.RawMessage
	TitlePlain  string
	Properties  json.RawMessage // a page's property values; a database's schema
	Description json.RawMessage
	Icon, Cover json.RawMessage // nil when null
	IsInline    bool
	InTrash     bool
	// TrashedUnder is true while some ancestor is in trash: the node is then hidden from
	// listings and search.
	TrashedUnder bool
	Version      int64
	CreatedMs    int64
	CreatedBy    string
	EditedMs     int64
	EditedBy     string
}

// Hidden reports whether the node is left out of listings and search.
func (n *Node) Hidden() bool { return n.InTrash || n.TrashedUnder }

// Block is one content block. PageID is the node whose content it is; ParentID is that node
// or another block. A child page or database also has a block, with the node's own id.
type Block struct {
	ID          string
	WorkspaceID string
	PageID      string
	ParentID    string
	Position    string
	Type        string
	Content     json.RawMessage // canonical JSON of the type's object, without children
	HasChildren bool
	InTrash     bool
	Version     int64
	CreatedMs   int64
	CreatedBy   string
	EditedMs    int64
	EditedBy    string
}

// ParentType of a block: a block directly under its page says page_id (or database_id), else
// block_id.
func (b *Block) ParentType(pageObject string) string {
	if b.ParentID != b.PageID {
		return ParentBlock
	}
	if pageObject == ObjectDatabase {
		return ParentDatabase
	}
	return ParentPage
}
