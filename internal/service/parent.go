package service

import (
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// Parent is where a page, database or mind map is created or moved to.
type Parent struct {
	Type string // quire.ParentWorkspace, quire.ParentPage or quire.ParentDatabase
	ID   string // "" for the workspace
	// Path names the request field, for errors ("parent").
	Path string
}

// ParentShape is a parent as written (DecodeParent): "type" may be left out.
var ParentShape = jsonbody.Body{Noun: "parent", Fields: []jsonbody.Field{
	{Name: "type", Type: "string", Enum: []string{quire.ParentWorkspace, quire.ParentPage, quire.ParentDatabase}},
	{Name: "workspace", Type: "boolean"},
	{Name: "page_id", Type: "string", Format: "uuid"},
	{Name: "database_id", Type: "string", Format: "uuid"},
}}

// DecodeNewParent reads the parent of something being created: as contract §2 says, a parent
// left out means the workspace (top level), which only a workspace-scoped token may use.
func DecodeNewParent(p *quire.Problems, path string, body map[string]any) Parent {
	v, ok := body[path]
	if !ok {
		return Parent{Type: quire.ParentWorkspace, Path: path}
	}
	return DecodeParent(p, path, v)
}

// DecodeParent reads a parent object: {"type":"page_id","page_id":ID}, {"type":"database_id",
// "database_id":ID} or {"type":"workspace","workspace":true}. As clients of the original service
// do, "type" may be left out when exactly one of the other keys is present.
func DecodeParent(p *quire.Problems, path string, v any) Parent {
	out := Parent{Path: path}
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			p.Add(path, quire.ReasonRequired, "parent is required.")
		} else {
			p.Add(path, quire.ReasonInvalidType, "parent must be an object.")
		}
		return out
	}
	typ, hasType := m["type"]
	ParentShape.UnknownAt(p, path, m)
	if hasType {
		s, ok := typ.(string)
		if !ok {
			p.Add(path+".type", quire.ReasonInvalidType, "parent.type must be a string.")
			return out
		}
		out.Type = s
	} else {
		n := 0
		for _, k := range []string{quire.ParentWorkspace, quire.ParentPage, quire.ParentDatabase} {
			if _, ok := m[k]; ok {
				out.Type = k
				n++
			}
		}
		if n != 1 {
			p.Add(path+".type", quire.ReasonRequired, "parent needs a type: page_id, database_id or workspace.")
			return out
		}
	}
	switch out.Type {
	case quire.ParentWorkspace:
		if m[quire.ParentWorkspace] != true {
			p.Add(path+".workspace", quire.ReasonInvalidValue, "A workspace parent is {\"type\":\"workspace\",\"workspace\":true}.")
		}
	case quire.ParentPage, quire.ParentDatabase:
		id, ok := m[out.Type].(string)
		switch {
		case m[out.Type] == nil:
			p.Add(path+"."+out.Type, quire.ReasonRequired, out.Type+" is required.")
		case !ok:
			p.Add(path+"."+out.Type, quire.ReasonInvalidType, out.Type+" must be a string.")
		case !quire.ValidID(id):
			p.Add(path+"."+out.Type, quire.ReasonInvalidValue, out.Type+" must be a UUID.")
		default:
			out.ID = id
		}
		for _, k := range []string{quire.ParentWorkspace, quire.ParentPage, quire.ParentDatabase} {
			if _, ok := m[k]; ok && k != out.Type {
				p.Add(path+"."+k, quire.ReasonInvalidValue, "parent names more than one parent.")
			}
		}
	default:
		p.Add(path+".type", quire.ReasonInvalidValue, "parent.type is one of page_id, database_id, workspace.")
	}
	return out
}

// idPath is the field of the parent that named its id (or the workspace), for errors.
func (pr Parent) idPath() string {
	if pr.Type == "" {
		return pr.Path
	}
	return pr.Path + "." + pr.Type
}
