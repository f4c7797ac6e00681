package httpapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
)

// mindMapTree is a mind map's node tree, written straight from the stored rows: a map of
// 10,000 nodes is one of the answers of every edit, so it is appended to one buffer instead of
// going through a tree of values and reflection.
type mindMapTree struct {
	nodes  []*quire.MindMapNode // in any order
	rootID string
}

// mindMapNode documents a node as read back.
type mindMapNode struct {
	ID        string        `json:"id" format:"uuid"`
	Text      string        `json:"text"`
	Color     string        `json:"color" enum:"default,black,gray,brown,orange,pink,yellow,green,blue,purple,red"`
	Collapsed bool          `json:"collapsed"`
	Children  []mindMapNode `json:"children" nullable:"false"`
}

// Schema describes the tree in the document.
func (mindMapTree) Schema(r huma.Registry) *huma.Schema {
	return r.Schema(reflect.TypeFor[mindMapNode](), true, "")
}

// MarshalJSON writes the root and, nested, every node beneath it.
func (t mindMapTree) MarshalJSON() ([]byte, error) {
	children := make(map[string][]*quire.MindMapNode, len(t.nodes))
	var root *quire.MindMapNode
	for _, n := range t.nodes {
		if n.ID == t.rootID {
			root = n
			continue
		}
		children[n.ParentID] = append(children[n.ParentID], n)
	}
	if root == nil {
		return []byte("null"), nil
	}
	for _, kids := range children {
		slices.SortFunc(kids, func(a, b *quire.MindMapNode) int { return strings.Compare(a.Position, b.Position) })
	}
	var write func(dst []byte, n *quire.MindMapNode, depth int) []byte
	write = func(dst []byte, n *quire.MindMapNode, depth int) []byte {
		dst = append(dst, `{"id":`...)
		dst = appendJSONString(dst, n.ID)
		dst = append(dst, `,"text":`...)
		dst = appendJSONString(dst, n.Text)
		dst = append(dst, `,"color":`...)
		dst = appendJSONString(dst, n.Color)
		dst = append(dst, `,"collapsed":`...)
		dst = strconv.AppendBool(dst, n.Collapsed)
		dst = append(dst, `,"children":[`...)
		if depth < 1000 { // a guard against a cycle only a bug could store
			for i, c := range children[n.ID] {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = write(dst, c, depth+1)
			}
		}
		return append(dst, "]}"...)
	}
	return write(make([]byte, 0, 128*len(t.nodes)), root, 1), nil
}

// appendJSONString appends s as a JSON string; anything but plain printable ASCII goes through
// encoding/json.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
