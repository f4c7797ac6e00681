package blocks

import (
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/jsonread"
	"github.com/quire-dev/quire/internal/quire"
)

// The fast path of the request decoder for blocks (jsonread.NewBody's rule): the common shape
// of an append body, {"children":[…]} of text blocks of plain text, is read straight from the
// bytes into the blocks DecodeValue builds from jsonbody.Parse's tree. Anything else, and
// every problem, is left to that reference path, which reports it; FuzzReadAppend holds the two
// equal on every body the fast path takes.

// fastTypes are the block types the fast path reads: a type object of rich_text alone (and a
// to_do's checked), no children.
var fastTypes = []string{"paragraph", "heading_1", "heading_2", "heading_3", "bulleted_list_item",
	"numbered_list_item", "to_do", "toggle", "quote"}

// Append is an append body read by ReadAppend: its blocks as DecodeValue decodes them under no
// parent, and the body, for the reference path when the block they go under asks for more.
type Append struct {
	blocks []*Block
	body   []byte
}

// ReadAppend reads body, an append body (PATCH /v2/blocks/:id/children), when it is
// {"children":[…]} of 1 to MaxArray blocks of fastTypes whose rich text is plain text items
// ({"type"?:"text","text":{"content":…}}) within MaxTextLength. ok is false for any other
// body: the caller decodes it with jsonbody.Parse and DecodeValue.
func ReadAppend(body []byte) (*Append, bool) {
	r := jsonread.NewBody(body)
	var bs []*Block
	var seen uint64
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		if string(r.Key()) != "children" || !r.Once(&seen, 0) {
			return nil, false
		}
		r.Open('[')
		bs = make([]*Block, 0, 16)
		for i := 0; r.More(']', i); i++ {
			b := readBlock(&r)
			if b == nil || len(bs) == MaxArray {
				return nil, false
			}
			bs = append(bs, b)
		}
	}
	if !r.End() || len(bs) == 0 {
		return nil, false
	}
	return &Append{blocks: bs, body: body}, true
}

// Under returns the blocks as DecodeValue(children, path, parent) would, when parent asks for
// no check they could fail; ok false leaves them to Tree and DecodeValue.
func (a *Append) Under(parent *Block) ([]*Block, bool) {
	if parent = appendParent(parent); parent == nil {
		return a.blocks, true
	}
	if !CanHaveChildren(parent) {
		return nil, false
	}
	var p quire.Problems
	checkChildren(&p, "children", parent, a.blocks, false)
	return a.blocks, len(p.Details) == 0
}

// Tree is the children array as jsonbody.Parse reads the body: the reference path's input.
func (a *Append) Tree() (any, error) {
	body, err := jsonbody.Parse(a.body)
	if err != nil {
		return nil, err
	}
	return body["children"], nil
}

// readBlock reads one block object of a fast type, or returns nil.
func readBlock(r *jsonread.Reader) *Block {
	var typ, inner string // "type" as written; the type object's key
	var b *Block
	var seen uint64
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch k := r.Key(); {
		case string(k) == "type":
			if !r.Once(&seen, 0) {
				return nil
			}
			typ = r.OneOf(fastTypes)
		case b == nil && fastType(k) != "":
			inner = fastType(k)
			b = &Block{Type: inner}
			if !readTextContent(r, b) {
				return nil
			}
		default: // a second type object, children beside type, object, an unknown key
			return nil
		}
	}
	if r.Bad() || b == nil || (typ != "" && typ != inner) {
		return nil
	}
	return b
}

// fastType returns the member of fastTypes equal to k, or "".
func fastType(k []byte) string {
	for _, t := range fastTypes {
		if string(k) == t {
			return t
		}
	}
	return ""
}

// readTextContent reads a text block's type object: rich_text (required) and a to_do's checked.
func readTextContent(r *jsonread.Reader, b *Block) bool {
	var seen uint64
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch string(r.Key()) {
		case "rich_text":
			if !r.Once(&seen, 0) {
				return false
			}
			rt, ok := ReadBodyRichText(r)
			if !ok {
				return false
			}
			b.Content.RichText = rt
		case "checked":
			if b.Type != "to_do" || !r.Once(&seen, 1) {
				return false
			}
			b.Content.Checked = r.Bool()
		default:
			return false
		}
	}
	return !r.Bad() && seen&1 != 0
}

// ReadBodyRichText is the fast path of DecodeRichText: an array of at most MaxArray plain text
// items ({"type"?:"text","text":{"content":…}}, content within MaxTextLength) read straight
// into the RichText DecodeRichText builds. ok is false for anything else (the Reader may be
// left anywhere): the caller leaves the whole body to the reference path.
func ReadBodyRichText(r *jsonread.Reader) (RichText, bool) {
	rt := RichText{}
	r.Open('[')
	for n := 0; r.More(']', n); n++ {
		if n == MaxArray {
			return nil, false
		}
		it, ok := readPlainItem(r)
		if !ok {
			return nil, false
		}
		rt = append(rt, it)
	}
	return rt, !r.Bad()
}

// readPlainItem reads {"type"?:"text","text":{"content":…}}.
func readPlainItem(r *jsonread.Reader) (Item, bool) {
	var seen uint64
	var content string
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch string(r.Key()) {
		case "type":
			if !r.Once(&seen, 0) || r.OneOf(itemKinds) != "text" {
				return Item{}, false
			}
		case "text":
			if !r.Once(&seen, 1) {
				return Item{}, false
			}
			var inner uint64
			r.Open('{')
			for m := 0; r.More('}', m); m++ {
				if string(r.Key()) != "content" || !r.Once(&inner, 0) {
					return Item{}, false
				}
				content = r.Text()
			}
			if inner == 0 {
				return Item{}, false
			}
		default: // annotations, plain_text, href, another kind: the reference reads them
			return Item{}, false
		}
	}
	if r.Bad() || seen&2 == 0 || (len(content) > MaxTextLength && utf8.RuneCountInString(content) > MaxTextLength) {
		return Item{}, false
	}
	it := Item{Type: "text", Text: &Text{Content: content}}
	it.Fill()
	return it, true
}
