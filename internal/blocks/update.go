package blocks

import (
	"github.com/quire-dev/quire/internal/jsonbody"
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
// modified. m is the body as jsonbody.Parse read it. The error is nil or a *quire.Error.
func DecodeUpdate(current *Block, m map[string]any) (Update, error) {
	var p quire.Problems
	var u Update
	typ := current.Type
	for _, k := range jsonbody.SortedKeys(m) {
		switch {
		case k == typ || k == "in_trash":
		case k == "type":
			if s, ok := jsonbody.Str(&p, "", m, "type"); ok && s != typ {
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
			if bm, ok := jsonbody.Object(&p, typ, body); ok {
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
