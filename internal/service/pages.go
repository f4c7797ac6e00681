package service

import (
	"context"
	"encoding/json"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/mindmap"
	"github.com/quire-dev/quire/internal/quire"
)

// NewPage is a validated POST /v2/pages body.
type NewPage struct {
	Parent   Parent
	PageType string
	Title    blocks.RichText
	Icon     json.RawMessage // canonical JSON, nil when none
	Cover    json.RawMessage
	Children []*blocks.Block
	// MindMap is the tree and settings of a mind map page; nil gives a root that reads like the
	// title and default settings.
	MindMap *mindmap.New
	// Properties are a record's raw property values (a database parent), checked against the
	// database's schema when the record is created.
	Properties any
}

// PagePatch is a validated PATCH /v2/pages/:id body; nil fields are left alone.
type PagePatch struct {
	Title   *blocks.RichText
	Icon    *json.RawMessage // set to nil JSON to clear
	Cover   *json.RawMessage
	InTrash *bool
	IfMatch string
	// Properties are the raw properties; a record's are checked against its database's
	// schema, any other page's were decoded into Title (titleErr holds their problems).
	Properties any
	titleErr   error
}

var pageTypes = map[string]bool{quire.PageTypePage: true, quire.PageTypeFolder: true, quire.PageTypeMindMap: true}

// DecodeNewPage validates a POST /v2/pages body, reporting every problem with its path.
// markdown, when given instead of children, is parsed by the caller into Children.
func DecodeNewPage(body map[string]any) (NewPage, string, error) {
	var p quire.Problems
	var out NewPage
	var md string
	NewPageBody.Unknown(&p, body)
	out.Parent = DecodeNewParent(&p, "parent", body)
	out.PageType = quire.PageTypePage
	if v, ok := body["page_type"]; ok {
		s, isStr := v.(string)
		switch {
		case !isStr:
			p.Add("page_type", quire.ReasonInvalidType, "page_type must be a string.")
		case !pageTypes[s]:
			p.Add("page_type", quire.ReasonInvalidValue, "page_type is one of page, folder, mind_map.")
		default:
			out.PageType = s
		}
	}
	if v, ok := body["properties"]; ok && out.Parent.Type == quire.ParentDatabase {
		if _, isObj := v.(map[string]any); !isObj && v != nil {
			p.Add("properties", quire.ReasonInvalidType, "properties must be an object.")
		}
		out.Properties = v
	} else if ok {
		if t := decodeTitleProperties(&p, "properties", v); t != nil {
			out.Title = *t
		}
	}
	out.Icon = decodeIcon(&p, "icon", body, true)
	out.Cover = decodeIcon(&p, "cover", body, false)
	_, hasChildren := body["children"]
	if v, ok := body["markdown"]; ok {
		s, isStr := v.(string)
		switch {
		case !isStr:
			p.Add("markdown", quire.ReasonInvalidType, "markdown must be a string.")
		case hasChildren:
			p.Add("markdown", quire.ReasonInvalidValue, "Send children or markdown, not both.")
		default:
			md = s
		}
	}
	if hasChildren {
		if out.PageType == quire.PageTypeFolder {
			p.Add("children", quire.ReasonInvalidValue, "A folder holds pages and databases only.")
		} else if out.PageType == quire.PageTypeMindMap {
			p.Add("children", quire.ReasonInvalidValue, "A mind map holds nodes; write them through /v2/mind-maps.")
		} else if bs, err := blocks.DecodeValue(body["children"], "children", nil); err != nil {
			mergeProblems(&p, err)
		} else {
			out.Children = bs
		}
	}
	if md != "" && out.PageType == quire.PageTypeFolder {
		p.Add("markdown", quire.ReasonInvalidValue, "A folder holds pages and databases only.")
	}
	if md != "" && out.PageType == quire.PageTypeMindMap {
		p.Add("markdown", quire.ReasonInvalidValue, "A mind map holds nodes; write them through /v2/mind-maps.")
	}
	return out, md, p.Err()
}

// DecodePagePatch validates a PATCH /v2/pages/:id body.
func DecodePagePatch(body map[string]any) (PagePatch, error) {
	var p quire.Problems
	var out PagePatch
	for _, k := range jsonbody.SortedKeys(body) {
		if !PagePatchBody.Takes(&p, k) {
			continue
		}
		v := body[k]
		switch k {
		case "properties":
			// Whether the page is a record is known only once it is read: a body that is not
			// a valid title-only one is kept for the record's schema to judge.
			if _, isObj := v.(map[string]any); !isObj {
				p.Add("properties", quire.ReasonInvalidType, "properties must be an object.")
				continue
			}
			var tp quire.Problems
			out.Title = decodeTitleProperties(&tp, "properties", v)
			out.Properties, out.titleErr = v, tp.Err()
		case "icon", "cover":
			raw := decodeIcon(&p, k, body, k == "icon")
			if k == "icon" {
				out.Icon = &raw
			} else {
				out.Cover = &raw
			}
		case "in_trash", "archived":
			b, ok := v.(bool)
			if !ok {
				p.Add(k, quire.ReasonInvalidType, k+" must be a boolean.")
				continue
			}
			out.InTrash = &b
		}
	}
	return out, p.Err()
}

// decodeTitleProperties reads the properties of a page outside a database: only its title,
// under the key "title", as {"title":[…]}, {"type":"title","title":[…]} or a bare array.
func decodeTitleProperties(p *quire.Problems, path string, v any) *blocks.RichText {
	m, ok := v.(map[string]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "properties must be an object.")
		return nil
	}
	var out *blocks.RichText
	for _, k := range jsonbody.SortedKeys(m) { // sorted: the same body, the same answer
		pv, kp := m[k], jsonbody.Join(path, k)
		if k != "title" {
			p.Add(kp, quire.ReasonUnknownField, "A page outside a database has only the title property.")
			continue
		}
		switch t := pv.(type) {
		case []any:
			rt := blocks.DecodeRichText(p, kp, t)
			out = &rt
		case map[string]any:
			for _, f := range jsonbody.SortedKeys(t) {
				if f != "title" && f != "type" && f != "id" {
					p.Add(jsonbody.Join(kp, f), quire.ReasonUnknownField, "The title property holds title only.")
				}
			}
			if typ, ok := t["type"]; ok && typ != "title" {
				p.Add(kp+".type", quire.ReasonInvalidValue, "The title property's type is title.")
			}
			if id, ok := t["id"]; ok && id != "title" {
				p.Add(kp+".id", quire.ReasonInvalidValue, "The title property's id is title.")
			}
			rt := blocks.DecodeRichText(p, kp+".title", t["title"])
			out = &rt
		default:
			p.Add(kp, quire.ReasonInvalidType, "title must be an object or an array of rich text.")
		}
	}
	return out
}

// decodeIcon reads body[key] as a page icon (emoji allowed) or cover: canonical JSON, or nil
// for null or absent.
func decodeIcon(p *quire.Problems, key string, body map[string]any, emoji bool) json.RawMessage {
	v, ok := body[key]
	if !ok || v == nil {
		return nil
	}
	return blocks.DecodePageIcon(p, key, v, emoji)
}

// mergeProblems adds the details of a validation error to p (anything else keeps its first
// message).
func mergeProblems(p *quire.Problems, err error) {
	if qe, ok := quire.AsError(err); ok {
		p.Merge(qe)
		return
	}
	p.Add("", quire.ReasonInvalidValue, err.Error())
}

// Page returns a page the caller reaches (trashed pages too), or not_found.
func (s *Service) Page(ctx context.Context, p *quire.Principal, id string) (*quire.Node, error) {
	n, err := s.readNode(ctx, p, id, "page", isPage)
	if err != nil {
		return nil, err
	}
	return n, s.RenderRecords(ctx, []*quire.Node{n}, nil)
}
