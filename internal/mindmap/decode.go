package mindmap

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// New is a validated POST /v2/mind-maps body, but for its parent, which the caller decodes.
type New struct {
	Title    blocks.RichText
	Root     *Node // nil when left out: the service makes a root that reads like the title
	Settings Settings
}

// Patch is a validated PATCH /v2/mind-maps/:id body.
type Patch struct {
	Title    *blocks.RichText
	Settings SettingsPatch
	Edits    []Edit
}

// DecodeNew validates a POST /v2/mind-maps body (v as parsed by encoding/json), reporting every
// problem with its path. The parent field is accepted and left to the caller.
func DecodeNew(body map[string]any) (New, error) {
	var p quire.Problems
	out := New{Settings: DefaultSettings()}
	ids := map[string]bool{}
	for _, k := range jsonbody.SortedKeys(body) {
		if !NewBody.Takes(&p, k) {
			continue
		}
		v := body[k]
		switch k {
		case "parent":
		case "title":
			out.Title = decodeTitle(&p, "title", v)
		case "root":
			out.Root = decodeNode(&p, "root", v, 1, ids)
		case "settings":
			out.Settings = decodeSettings(&p, "settings", v).Apply(out.Settings)
		}
	}
	if _, ok := body["title"]; !ok {
		p.Add("title", quire.ReasonRequired, "A mind map needs a title (rich text or a string; it may be empty).")
	}
	if out.Root != nil && out.Root.Size() > MaxNodes {
		p.AddDetail(quire.Beyond("root", quire.ReasonTooMany, MaxNodes, int64(out.Root.Size())), fmt.Sprintf("A mind map has at most %d nodes.", MaxNodes))
	}
	return out, p.Err()
}

// DecodePatch validates a PATCH /v2/mind-maps/:id body: {title?, settings?, edits?}.
func DecodePatch(body map[string]any) (Patch, error) {
	var p quire.Problems
	var out Patch
	for _, k := range jsonbody.SortedKeys(body) {
		if !PatchBody.Takes(&p, k) {
			continue
		}
		v := body[k]
		switch k {
		case "title":
			t := decodeTitle(&p, "title", v)
			out.Title = &t
		case "settings":
			out.Settings = decodeSettings(&p, "settings", v)
		case "edits":
			out.Edits = decodeEdits(&p, "edits", v)
		}
	}
	return out, p.Err()
}

// decodeTitle reads a title written as rich text or, for convenience, a plain string.
func decodeTitle(p *quire.Problems, path string, v any) blocks.RichText {
	if s, ok := v.(string); ok {
		if n := utf8.RuneCountInString(s); n > blocks.MaxTextLength {
			p.AddDetail(quire.Beyond(path, quire.ReasonTooLong, blocks.MaxTextLength, int64(n)), fmt.Sprintf("title has at most %d characters.", blocks.MaxTextLength))
			return nil
		}
		return blocks.Plain(s)
	}
	return blocks.DecodeRichText(p, path, v)
}

func decodeSettings(p *quire.Problems, path string, v any) SettingsPatch {
	var out SettingsPatch
	m, ok := v.(map[string]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "settings must be an object.")
		return out
	}
	for _, k := range jsonbody.SortedKeys(m) {
		if !SettingsShape.TakesAt(p, path, k) {
			continue
		}
		kp := jsonbody.Join(path, k)
		switch k {
		case "layout":
			out.Layout = oneOf(p, kp, m[k], Layouts)
		case "theme":
			out.Theme = oneOf(p, kp, m[k], Themes)
		}
	}
	return out
}

// decodeNode reads a node and its subtree at depth (the root's is 1). ids holds the ids chosen
// so far in the request, which must differ.
func decodeNode(p *quire.Problems, path string, v any, depth int, ids map[string]bool) *Node {
	m, ok := v.(map[string]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "A node must be an object.")
		return nil
	}
	if depth > MaxDepth {
		p.AddDetail(quire.Beyond(path, quire.ReasonOutOfRange, MaxDepth, int64(depth)), fmt.Sprintf("A mind map is at most %d levels deep.", MaxDepth))
		return nil
	}
	n := &Node{Color: Colors[0]}
	// The id first, before the children's: a repeated id is reported where it repeats.
	if v, ok := m["id"]; ok {
		if id := decodeID(p, path+".id", v); id != "" {
			if ids[id] {
				p.Add(path+".id", quire.ReasonInvalidValue, "Two nodes of the request have the same id.")
			}
			ids[id] = true
			n.ID = id
		}
	}
	for _, k := range jsonbody.SortedKeys(m) {
		if !NodeShape.TakesAt(p, path, k) {
			continue
		}
		kp := jsonbody.Join(path, k)
		switch k {
		case "text":
			if s := decodeText(p, kp, m[k]); s != nil {
				n.Text = *s
			}
		case "color":
			if c := oneOf(p, kp, m[k], Colors); c != nil {
				n.Color = *c
			}
		case "collapsed":
			if b := decodeBool(p, kp, m[k]); b != nil {
				n.Collapsed = *b
			}
		case "children":
			a, ok := m[k].([]any)
			if !ok {
				p.Add(kp, quire.ReasonInvalidType, "children must be an array.")
				continue
			}
			if len(a) > MaxArray {
				p.AddDetail(quire.Beyond(kp, quire.ReasonTooMany, MaxArray, int64(len(a))), fmt.Sprintf("At most %d children per node in one request.", MaxArray))
				continue
			}
			for i, c := range a {
				if child := decodeNode(p, fmt.Sprintf("%s[%d]", kp, i), c, depth+1, ids); child != nil {
					n.Children = append(n.Children, child)
				}
			}
		}
	}
	return n
}

func decodeEdits(p *quire.Problems, path string, v any) []Edit {
	a, ok := v.([]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "edits must be an array.")
		return nil
	}
	if len(a) > MaxArray {
		p.AddDetail(quire.Beyond(path, quire.ReasonTooMany, MaxArray, int64(len(a))), fmt.Sprintf("At most %d edits per request.", MaxArray))
		return nil
	}
	ids := map[string]bool{}
	out := make([]Edit, 0, len(a))
	for i, ev := range a {
		if e, ok := decodeEdit(p, fmt.Sprintf("%s[%d]", path, i), ev, ids); ok {
			out = append(out, e)
		}
	}
	return out
}

// Fields each operation takes, and which of them it requires.
var (
	editFields = map[string][]string{
		OpAdd:    {"op", "parent_id", "node", "after", "position"},
		OpUpdate: {"op", "node_id", "text", "color", "collapsed"},
		OpMove:   {"op", "node_id", "parent_id", "after", "position"},
		OpDelete: {"op", "node_id"},
	}
	editRequired = map[string][]string{
		OpAdd:    {"parent_id", "node"},
		OpUpdate: {"node_id"},
		OpMove:   {"node_id", "parent_id"},
		OpDelete: {"node_id"},
	}
)

func decodeEdit(p *quire.Problems, path string, v any, ids map[string]bool) (Edit, bool) {
	e := Edit{Path: path}
	m, ok := v.(map[string]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "An edit must be an object.")
		return e, false
	}
	before := len(p.Details)
	op, ok := m["op"].(string)
	switch {
	case m["op"] == nil:
		p.Add(path+".op", quire.ReasonRequired, "An edit needs an op: add, update, move or delete.")
		return e, false
	case !ok:
		p.Add(path+".op", quire.ReasonInvalidType, "op must be a string.")
		return e, false
	case editFields[op] == nil:
		p.Add(path+".op", quire.ReasonInvalidValue, "op is one of add, update, move, delete.")
		return e, false
	}
	e.Op = op
	for _, k := range editRequired[op] {
		if _, ok := m[k]; !ok {
			p.Add(path+"."+k, quire.ReasonRequired, k+" is required for "+op+".")
		}
	}
	for _, k := range jsonbody.SortedKeys(m) {
		kp := jsonbody.Join(path, k)
		v := m[k]
		if !slices.Contains(editFields[op], k) {
			p.Add(kp, quire.ReasonUnknownField, "An "+op+" edit has no field "+k+".")
			continue
		}
		switch k {
		case "node_id":
			e.NodeID = decodeID(p, kp, v)
		case "parent_id":
			e.ParentID = decodeID(p, kp, v)
		case "after":
			e.After = decodeID(p, kp, v)
		case "position":
			e.Start = decodePosition(p, kp, v)
			if _, ok := m["after"]; ok {
				p.Add(kp, quire.ReasonInvalidValue, "Send after or position, not both.")
			}
		case "node":
			e.Node = decodeNode(p, kp, v, 2, ids)
		case "text":
			e.Text = decodeText(p, kp, v)
		case "color":
			e.Color = oneOf(p, kp, v, Colors)
		case "collapsed":
			e.Collapsed = decodeBool(p, kp, v)
		}
	}
	if op == OpMove && e.After != "" && e.After == e.NodeID {
		p.Add(path+".after", quire.ReasonInvalidValue, "A node cannot move after itself.")
	}
	if e.Node != nil && e.Node.Size() > MaxNodes {
		p.AddDetail(quire.Beyond(path+".node", quire.ReasonTooMany, MaxNodes, int64(e.Node.Size())), fmt.Sprintf("A mind map has at most %d nodes.", MaxNodes))
	}
	return e, len(p.Details) == before
}

// decodePosition reads {"type":"start"} or {"type":"end"}: true for start.
func decodePosition(p *quire.Problems, path string, v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		p.Add(path, quire.ReasonInvalidType, "position must be an object.")
		return false
	}
	PositionShape.UnknownAt(p, path, m)
	switch m["type"] {
	case "start":
		return true
	case "end":
	case nil:
		p.Add(path+".type", quire.ReasonRequired, "position.type is start or end.")
	default:
		p.Add(path+".type", quire.ReasonInvalidValue, "position.type is start or end.")
	}
	return false
}

func decodeID(p *quire.Problems, path string, v any) string {
	s, ok := v.(string)
	switch {
	case v == nil:
		p.Add(path, quire.ReasonRequired, "A node id is required.")
	case !ok:
		p.Add(path, quire.ReasonInvalidType, "A node id is a string.")
	case !quire.ValidID(s):
		p.Add(path, quire.ReasonInvalidValue, "A node id is a UUID.")
	default:
		return s
	}
	return ""
}

func decodeText(p *quire.Problems, path string, v any) *string {
	s, ok := v.(string)
	switch {
	case !ok:
		p.Add(path, quire.ReasonInvalidType, "text must be a string.")
	case utf8.RuneCountInString(s) > MaxTextLength:
		p.AddDetail(quire.Beyond(path, quire.ReasonTooLong, MaxTextLength, int64(utf8.RuneCountInString(s))), fmt.Sprintf("text has at most %d characters.", MaxTextLength))
	default:
		return &s
	}
	return nil
}

func decodeBool(p *quire.Problems, path string, v any) *bool {
	if b, ok := jsonbody.Bool(p, path, v); ok {
		return &b
	}
	return nil
}

// oneOf reads a string that must be one of allowed; nil when it is not.
func oneOf(p *quire.Problems, path string, v any, allowed []string) *string {
	if s, ok := jsonbody.Enum(p, path, v, allowed); ok {
		return &s
	}
	return nil
}
