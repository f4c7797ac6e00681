package blocks

import (
	"slices"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// Limits bound the shape of a forest of blocks; a zero field means no bound.
type Limits struct {
	MaxDepth    int // levels of children below the top level
	MaxChildren int // entries of any children array
	MaxBlocks   int // blocks in total
}

// RequestLimits are the limits of one JSON write request (contract §5).
var RequestLimits = Limits{MaxDepth: MaxRequestDepth, MaxChildren: MaxArray, MaxBlocks: MaxRequestBlocks}

// Validate checks blocks built in memory (by the Markdown importer, say) with the same rules
// and paths as Decode, path naming the array ("children"). parent is the block they go
// below, nil for a page. Read-only types are rejected as in a request. The error is nil or a
// validation_error.
func Validate(bs []*Block, path string, parent *Block, lim Limits) error {
	v := validator{lim: lim}
	v.children(bs, path, parent, 0, false)
	if lim.MaxBlocks > 0 && v.count > lim.MaxBlocks {
		tooMany(&v.p, path, lim.MaxBlocks, v.count, "blocks in one request")
	}
	return v.p.Err()
}

type validator struct {
	p     quire.Problems
	lim   Limits
	count int
}

func (v *validator) children(bs []*Block, path string, parent *Block, depth int, created bool) {
	if v.lim.MaxChildren > 0 && len(bs) > v.lim.MaxChildren {
		tooMany(&v.p, path, v.lim.MaxChildren, len(bs), "items")
	}
	for i, b := range bs {
		bp := jsonbody.Index(path, i)
		if b == nil {
			v.p.Add(bp, quire.ReasonRequired, "A block is missing.")
			continue
		}
		v.count++
		v.block(b, bp, depth)
	}
	checkChildren(&v.p, path, parent, bs, created)
}

func (v *validator) block(b *Block, path string, depth int) {
	if !unsupported(&v.p, jsonbody.Join(path, "type"), b.Type) {
		return
	}
	tp := jsonbody.Join(path, b.Type)
	checkContent(&v.p, tp, b)
	cp := jsonbody.Join(tp, "children")
	switch {
	case len(b.Children) == 0:
		if types[b.Type].container {
			v.p.Add(cp, quire.ReasonRequired, "A "+b.Type+" is created with its children.")
		}
	case !CanHaveChildren(b):
		v.p.Add(cp, quire.ReasonInvalidValue, "A "+b.Type+" block cannot have children.")
	case v.lim.MaxDepth > 0 && depth >= v.lim.MaxDepth:
		v.p.Add(cp, quire.ReasonInvalidValue, "Children nest too deep.")
	default:
		v.children(b.Children, cp, b, depth+1, true)
	}
}

func checkRichText(p *quire.Problems, path string, rt RichText) {
	if len(rt) > MaxArray {
		tooMany(p, path, MaxArray, len(rt), "items")
	}
	for i := range rt {
		checkItem(p, jsonbody.Index(path, i), &rt[i])
	}
}

// checkContent checks the fields of b's type (path names the type object).
func checkContent(p *quire.Problems, path string, b *Block) {
	info := types[b.Type]
	c := &b.Content
	if info.richText {
		checkRichText(p, jsonbody.Join(path, "rich_text"), c.RichText)
	}
	if info.color {
		if !ValidTextColor(c.TextColor) {
			p.Add(jsonbody.Join(path, "text_color"), quire.ReasonInvalidValue, "Unknown text colour.")
		}
		if !ValidBackgroundColor(c.BackgroundColor) {
			p.Add(jsonbody.Join(path, "background_color"), quire.ReasonInvalidValue, "Unknown background colour.")
		}
	}
	if info.caption {
		checkRichText(p, jsonbody.Join(path, "caption"), c.Caption)
	}
	for _, a := range []struct {
		on         bool
		key, value string
	}{{info.textAlign, "text_align", c.TextAlign}, {info.captionAlign, "caption_align", c.CaptionAlign}} {
		if a.value != "" && (!a.on || !slices.Contains(Alignments, a.value)) {
			p.Add(jsonbody.Join(path, a.key), quire.ReasonInvalidValue, "Expected one of left, center, right.")
		}
	}
	if info.media {
		if c.File == nil {
			p.Add(jsonbody.Join(path, "external"), quire.ReasonRequired, "A file is required.")
		} else {
			checkFile(p, path, c.File)
		}
	}
	switch b.Type {
	case "callout":
		if ic := c.Icon; ic != nil {
			if ic.File != nil {
				checkFile(p, jsonbody.Join(path, "icon"), ic.File)
			} else if !validEmoji(ic.Emoji) {
				p.Add(jsonbody.Join(path, "icon", "emoji"), quire.ReasonInvalidValue, "Not an emoji.")
			}
		}
	case "code":
		if !ValidLanguage(c.Language) {
			p.Add(jsonbody.Join(path, "language"), quire.ReasonInvalidValue, "Unknown code language.")
		}
	case "equation":
		checkLen(p, jsonbody.Join(path, "expression"), c.Expression, MaxExpressionLength)
	case "file":
		checkLen(p, jsonbody.Join(path, "name"), c.Name, MaxTextLength)
	case "bookmark", "embed":
		checkURL(p, jsonbody.Join(path, "url"), c.URL)
	case "table":
		if c.TableWidth < 1 || c.TableWidth > MaxArray {
			outOfRange(p, jsonbody.Join(path, "table_width"), 1, MaxArray, c.TableWidth, "table_width is 1 to 100.")
		}
	case "table_row":
		cp := jsonbody.Join(path, "cells")
		if len(c.Cells) > MaxArray {
			tooMany(p, cp, MaxArray, len(c.Cells), "cells")
		}
		for i, cell := range c.Cells {
			checkRichText(p, jsonbody.Index(cp, i), cell)
		}
	case "link_to_page":
		switch {
		case c.PageID != "" && c.DatabaseID != "":
			p.Add(jsonbody.Join(path, "database_id"), quire.ReasonInvalidValue, "A link_to_page names one target.")
		case c.PageID != "":
			checkID(p, jsonbody.Join(path, "page_id"), c.PageID)
		case c.DatabaseID != "":
			checkID(p, jsonbody.Join(path, "database_id"), c.DatabaseID)
		default:
			p.Add(jsonbody.Join(path, "page_id"), quire.ReasonRequired, "A link_to_page names a page_id or a database_id.")
		}
	}
}
