package httpapi

import (
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// mindMapTree is a mind map's node tree, appended to one buffer straight from the indexed
// nodes: a map of 10,000 nodes is the answer of every edit, so it does not go through a tree of
// values and reflection.
type mindMapTree struct{ *service.MindMapTree }

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
	if t.MindMapTree == nil || t.Root == nil {
		return []byte("null"), nil
	}
	return t.appendNode(make([]byte, 0, 128*t.Count), t.Root, 1, false), nil
}

// appendNodes writes the tree as the original service's clients read it: `nodes`, an array
// whose single top node is the root, each node's text as rich text.
func (t mindMapTree) appendNodes(dst []byte) []byte {
	if t.MindMapTree == nil || t.Root == nil {
		return append(dst, "[]"...)
	}
	return append(t.appendNode(append(dst, '['), t.Root, 1, true), ']')
}

// appendNode writes n and, nested, every node beneath it: with text, or (asRichText) with
// rich_text and the plain text beside it.
func (t mindMapTree) appendNode(dst []byte, n *quire.MindMapNode, depth int, asRichText bool) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, n.ID)
	if asRichText {
		dst = append(dst, `,"rich_text":`...)
		dst = blocks.AppendRichText(dst, blocks.Plain(n.Text))
	}
	dst = append(dst, `,"text":`...)
	dst = appendJSONString(dst, n.Text)
	dst = append(dst, `,"color":`...)
	dst = appendJSONString(dst, n.Color)
	dst = append(dst, `,"collapsed":`...)
	dst = strconv.AppendBool(dst, n.Collapsed)
	dst = append(dst, `,"children":[`...)
	if depth < 1000 { // a guard against a cycle only a bug could store
		for i, c := range t.Kids[n.ID] {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = t.appendNode(dst, c, depth+1, asRichText)
		}
	}
	return append(dst, "]}"...)
}

// mindMapNodes is the tree as `nodes` (appendNodes); it is written by appendJSON, and only
// described here.
type mindMapNodes struct{}

// mindMapRichNode documents a node of `nodes`.
type mindMapRichNode struct {
	ID        string            `json:"id" format:"uuid"`
	RichText  richTextJSON      `json:"rich_text" doc:"The node's text as one unstyled text item (none when empty)."`
	Text      string            `json:"text"`
	Color     string            `json:"color" enum:"default,black,gray,brown,orange,pink,yellow,green,blue,purple,red"`
	Collapsed bool              `json:"collapsed"`
	Children  []mindMapRichNode `json:"children" nullable:"false"`
}

// Schema describes nodes in the document.
func (mindMapNodes) Schema(r huma.Registry) *huma.Schema {
	return &huma.Schema{Type: "array", Items: r.Schema(reflect.TypeFor[mindMapRichNode](), true, ""),
		Description: "The same tree as root, as the original service answers it: the root is the single top node."}
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
