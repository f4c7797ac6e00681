package httpapi

import (
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

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
			for i, c := range t.Kids[n.ID] {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = write(dst, c, depth+1)
			}
		}
		return append(dst, "]}"...)
	}
	return write(make([]byte, 0, 128*t.Count), t.Root, 1), nil
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
