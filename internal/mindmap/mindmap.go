// Package mindmap is the mind-map vocabulary of the API: the node tree and settings of a
// mind_map object, and the decoders of its create and update bodies (contract §7). It does no
// I/O: the service applies what it decodes.
package mindmap

// Limits of one mind map and of one request.
const (
	MaxNodes      = 10000 // nodes of one mind map, the root included
	MaxDepth      = 100   // levels of one mind map: the root is at depth 1
	MaxTextLength = 2000  // a node's text, in characters (Unicode code points)
	MaxArray      = 100   // children of one node in a request, edits of one request
)

// Layouts and themes a mind map's settings may name; the first of each is the default.
var (
	Layouts = []string{"right", "left", "both", "tree", "org"}
	Themes  = []string{"default", "classic", "colorful", "dark", "minimal"}
)

// Colors a node may have: the text colours of blocks.
var Colors = []string{"default", "black", "gray", "brown", "orange", "pink", "yellow", "green", "blue", "purple", "red"}

// Node is one node of a mind map, with its subtree. On input ID is "" unless the client chose
// it; stored nodes always have one.
type Node struct {
	ID        string
	Text      string
	Color     string // one of Colors; "default" when none
	Collapsed bool
	Children  []*Node
}

// Size is the number of nodes of n's subtree, n included.
func (n *Node) Size() int {
	k := 1
	for _, c := range n.Children {
		k += c.Size()
	}
	return k
}

// Height is the number of levels of n's subtree: 1 for a leaf.
func (n *Node) Height() int {
	h := 0
	for _, c := range n.Children {
		h = max(h, c.Height())
	}
	return h + 1
}

// Settings is how a mind map is drawn.
type Settings struct {
	Layout string `json:"layout"`
	Theme  string `json:"theme"`
}

// DefaultSettings are the settings of a mind map created without any.
func DefaultSettings() Settings { return Settings{Layout: Layouts[0], Theme: Themes[0]} }

// SettingsPatch changes the settings it names; nil fields are left alone.
type SettingsPatch struct {
	Layout *string
	Theme  *string
}

// Apply returns s changed by sp.
func (sp SettingsPatch) Apply(s Settings) Settings {
	if sp.Layout != nil {
		s.Layout = *sp.Layout
	}
	if sp.Theme != nil {
		s.Theme = *sp.Theme
	}
	return s
}

// Edit operations.
const (
	OpAdd    = "add"
	OpUpdate = "update"
	OpMove   = "move"
	OpDelete = "delete"
)

// Edit is one validated edit of a PATCH, applied in order with the others.
type Edit struct {
	Op   string
	Path string // the edit in the request, for errors: "edits[3]"
	// NodeID is the node updated, moved or deleted.
	NodeID string
	// ParentID is where add and move put the node: after sibling After, or first when Start,
	// else last.
	ParentID string
	After    string
	Start    bool
	// Node is the subtree an add inserts.
	Node *Node
	// Text, Color and Collapsed are what an update changes; nil fields are left alone.
	Text      *string
	Color     *string
	Collapsed *bool
}
