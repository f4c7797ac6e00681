package blocks

import (
	"encoding/json"
	"sort"

	"github.com/quire-dev/quire/internal/quire"
)

// Update is a decoded PATCH /v2/blocks/:id body.
type Update struct {
	Block   *Block // the merged block, nil when the body changes no content
	InTrash *bool  // set when the body holds in_trash
}

// DecodeUpdate validates a PATCH /v2/blocks/:id body against the current block and merges
// it: `{T:{…fields to change…}}` and/or `{"in_trash":bool}`, where T must be the block's own
// type (another type, or a "type" that differs, is reason immutable at `type`). Fields left
// out keep their values; rich_text, caption and cells are replaced whole. current is not
// modified. The error is nil or a *quire.Error.
func DecodeUpdate(current *Block, raw json.RawMessage) (Update, error) {
	v, err := parse(raw, "")
	if err != nil {
		return Update{}, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Update{}, &quire.Error{Code: quire.CodeInvalidJSON, Message: "The body is not a JSON object.",
			Details: []quire.Detail{{Path: "body", Reason: quire.ReasonInvalidType}}}
	}
	var p quire.Problems
	var u Update
	typ := current.Type
	for _, k := range sortedKeys(m) {
		switch {
		case k == typ || k == "in_trash":
		case k == "type":
			if s, ok := str(&p, "", m, "type"); ok && s != typ {
				p.Add("type", quire.ReasonImmutable, "A block's type cannot change.")
			}
		case Known(k):
			p.Add("type", quire.ReasonImmutable, "A block's type cannot change.")
		default:
			p.Add(k, quire.ReasonUnknownField, "Unknown field \""+k+"\".")
		}
	}
	if t, ok := boolean(&p, "", m, "in_trash"); ok {
		u.InTrash = &t
	}
	if body, present := m[typ]; present {
		switch {
		case !Writable(typ):
			p.Add("type", quire.ReasonInvalidValue, "A "+typ+" block is changed through its page or database.")
		default:
			if bm, ok := object(&p, typ, body); ok {
				b := &Block{Type: typ, Content: cloneContent(current.Content)}
				content(&p, typ, b, bm, true)
				u.Block = b
			}
		}
	}
	if err := p.Err(); err != nil {
		return Update{}, err
	}
	return u, nil
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// cloneContent copies c deeply enough that a merge never writes into the caller's block.
func cloneContent(c Content) Content {
	if c.Icon != nil {
		ic := *c.Icon
		if ic.File != nil {
			f := *ic.File
			ic.File = &f
		}
		c.Icon = &ic
	}
	if c.File != nil {
		f := *c.File
		c.File = &f
	}
	c.RichText = append(RichText(nil), c.RichText...)
	c.Caption = append(RichText(nil), c.Caption...)
	c.Cells = append([]RichText(nil), c.Cells...)
	return c
}
