package quire

// MindMap is what a mind map holds beside its node (a page with PageType mind_map): its root,
// its settings, and the number of its nodes, kept by every edit so that the limit is checked
// without counting.
type MindMap struct {
	ID        string // the page's id
	RootID    string
	Settings  []byte // canonical JSON {"layout":…,"theme":…}
	NodeCount int
}

// MindMapNode is one stored node of a mind map. ParentID is "" for the root; Position orders
// siblings (package order).
type MindMapNode struct {
	ID        string
	ParentID  string
	Position  string
	Text      string
	Color     string
	Collapsed bool
}
