package service

import (
	"context"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// Placement says where new blocks go among a parent's children: at the end (the zero value),
// at the start, or right after one sibling.
type Placement struct {
	Start bool
	After string // a block id; "" unless placing after it
	// Path names the request field that chose the placement, for errors ("after",
	// "position.after_block.id").
	Path string
}

// positions returns n ascending position keys for new children of parent at pl.
func positions(ctx context.Context, tx *store.Tx, ws, parent string, pl Placement, n int) ([]string, error) {
	var lo, hi string
	var err error
	switch {
	case pl.After != "":
		sib, err := tx.Block(ctx, ws, pl.After)
		if err != nil || sib.ParentID != parent || sib.InTrash {
			return nil, quire.Invalid(pl.Path, quire.ReasonInvalidValue, "after must name a child of the parent block that is not in trash.")
		}
		lo = sib.Position
		if hi, err = tx.NextPosition(ctx, parent, lo); err != nil {
			return nil, err
		}
	case pl.Start:
		if hi, err = tx.FirstChildPosition(ctx, parent); err != nil {
			return nil, err
		}
	default:
		if lo, err = tx.LastChildPosition(ctx, parent); err != nil {
			return nil, err
		}
	}
	return order.NBetween(lo, hi, n)
}

// DecodePlacement reads after, or Notion's newer position object, of an append body.
func DecodePlacement(body map[string]any) (Placement, error) {
	var pr quire.Problems
	var pl Placement
	id := func(path string, v any) string {
		s, ok := v.(string)
		if !ok || !quire.ValidID(s) {
			pr.Add(path, quire.ReasonInvalidValue, path+" must be a block id.")
		}
		return s
	}
	for _, k := range jsonbody.SortedKeys(body) {
		v := body[k]
		switch k {
		case "children":
		case "after":
			pl.After, pl.Path = id("after", v), "after"
		case "position":
			m, ok := v.(map[string]any)
			if !ok {
				pr.Add("position", quire.ReasonInvalidType, "position must be an object.")
				continue
			}
			switch m["type"] {
			case "start":
				pl.Start = true
			case "end":
			case "after_block":
				ab, _ := m["after_block"].(map[string]any)
				pl.After, pl.Path = id("position.after_block.id", ab["id"]), "position.after_block.id"
			default:
				pr.Add("position.type", quire.ReasonInvalidValue, "position.type is start, end or after_block.")
			}
		default:
			pr.Add(jsonbody.Join("", k), quire.ReasonUnknownField, "An append has no field "+k+".")
		}
	}
	if _, a := body["after"]; a {
		if _, p := body["position"]; p {
			pr.Add("position", quire.ReasonInvalidValue, "Send after or position, not both.")
		}
	}
	return pl, pr.Err()
}
