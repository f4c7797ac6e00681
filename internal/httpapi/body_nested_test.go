package httpapi

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
	"github.com/quire-dev/quire/internal/views"
)

// TestNestedShapesMatchTheDecoders holds the objects inside the request bodies (a parent, a
// sort, a node, a mutation …) to their decoders as TestRequestBodiesMatchTheDocument holds the
// bodies: each key a nested object's schema lists is taken (never unknown_field), a key it does
// not list is refused as unknown_field at its path, a key it requires is named when left out,
// and a value beyond a bound it sets is refused at its path. Most of these shapes are built from
// the description their decoder reads (bodyShapes' fromDecoder); for the few still typed
// (FileObject, RichTextItemInput, ViewLayoutItem, ViewSort, ViewConfig: kinds with keys of
// their own, or types answers share) this test is what keeps the document true. Each named shape is checked where a body first holds
// it; unions (a block, a property value, a filter) are built from their decoders' tables and
// left to their own tests.
func TestNestedShapesMatchTheDecoders(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		writes, schemas := documentedWrites(t, e)
		n := nestedWalk{t: t, e: e, schemas: schemas, seen: map[string]bool{}}
		for _, w := range writes {
			if w.path == "/v2/blocks/{block_id}" {
				continue // its keys are the block's type's: blocks.Describe builds them
			}
			props, _ := w.schema["properties"].(map[string]any)
			for _, key := range jsonbody.SortedKeys(props) {
				at := func(v any) any { return map[string]any{key: v} }
				n.walk(w, key, props[key].(map[string]any), at)
			}
		}
		for _, name := range []string{"ParentInput", "SearchFilter", "SearchSort", "SortInput", "UploadParent",
			"PositionInput", "MindMapNodeInput", "MindMapSettingsInput", "MutationInput", "ViewLayoutItem", "ViewSort", "ViewConfig"} {
			if !n.seen[name] {
				t.Errorf("no request body holds %s; the walk missed it", name)
			}
		}
	})
}

// nestedContext is what a body must hold beside a key of a shape for the shape's decoder to
// read that key: the object's type or op (each kind takes its own keys), or the body's other
// members (config's keys are the view type's). A key is taken when some context takes it.
var nestedContext = map[string][]nestedCtx{
	"MutationInput":     {{obj: m{"op": "create"}}, {obj: m{"op": "update"}}, {obj: m{"op": "trash"}}},
	"FileObject":        {{obj: m{"type": "emoji"}}, {obj: m{"type": "external"}}, {obj: m{"type": "file_upload"}}, {obj: m{"type": "file"}}},
	"RichTextItemInput": {{obj: m{"type": "text", "text": m{"content": "x"}}}, {obj: m{"type": "mention"}}, {obj: m{"type": "equation"}}},
	"MentionInput":      {{obj: m{"type": "user"}}, {obj: m{"type": "page"}}, {obj: m{"type": "database"}}, {obj: m{"type": "date"}}},
	"PositionInput":     {{obj: m{"type": "after_block"}}},
	"ViewConfig":        viewKinds(),
}

// nestedAt names the write where a shape is checked when another write that holds it cannot
// show all its keys (a PATCH of a view has the view's type).
var nestedAt = map[string]string{"ViewConfig": "POST /v2/databases/{database_id}/views"}

// m is a JSON object.
type m = map[string]any

// nestedCtx is what goes beside a key: members of its object, members of the body.
type nestedCtx struct{ obj, body m }

// viewKinds are a new view's body for each view type.
func viewKinds() []nestedCtx {
	var out []nestedCtx
	for _, k := range views.Kinds {
		out = append(out, nestedCtx{body: m{"name": "Nested", "type": k}})
	}
	return out
}

// contextFor is the context in which key of shape name is read: the one that names key (a
// type), else the first.
func contextFor(name, key string) nestedCtx {
	ctxs := nestedContext[name]
	if len(ctxs) == 0 {
		return nestedCtx{}
	}
	for _, c := range ctxs {
		if slices.Contains(slices.Collect(maps.Values(c.obj)), any(key)) {
			return c
		}
	}
	return ctxs[0]
}

// nestedWalk walks the request schemas for named object shapes.
type nestedWalk struct {
	t       *testing.T
	e       *env
	schemas map[string]any
	seen    map[string]bool
}

// walk checks the object shape prop describes at path (or inside it: an array's items, a
// nullable reference), where at places a value in a body.
func (n *nestedWalk) walk(w documentedWrite, path string, prop map[string]any, at func(any) any) {
	if variants, _ := prop["oneOf"].([]any); len(variants) == 2 && nullable(prop) {
		for _, v := range variants {
			if v.(map[string]any)["type"] != "null" {
				n.walk(w, path, v.(map[string]any), at)
			}
		}
		return
	}
	if items, ok := prop["items"].(map[string]any); ok {
		n.walk(w, path+"[0]", items, func(v any) any { return at([]any{v}) })
		return
	}
	ref, _ := prop["$ref"].(string)
	name := strings.TrimPrefix(ref, "#/components/schemas/")
	if name == "" || n.seen[name] || nestedAt[name] != "" && nestedAt[name] != w.method+" "+w.path {
		return
	}
	obj := n.schemas[name].(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	if props == nil || obj["additionalProperties"] != false {
		return // a union, or a map
	}
	n.seen[name] = true
	n.t.Run(name+" at "+w.method+" "+w.path+" "+path, func(t *testing.T) {
		n.check(t, w, name, path, obj, at)
	})
	for _, key := range jsonbody.SortedKeys(props) {
		c := contextFor(name, key)
		n.walk(w, jsonbody.Join(path, key), props[key].(map[string]any), func(v any) any {
			return c.in(at(c.with(m{key: v})))
		})
	}
}

// with is obj with the members the context puts beside its keys.
func (c nestedCtx) with(obj m) m {
	out := maps.Clone(c.obj)
	if out == nil {
		out = m{}
	}
	maps.Copy(out, obj)
	return out
}

// in is body with the members the context puts beside the shape.
func (c nestedCtx) in(body any) any {
	maps.Copy(body.(m), c.body)
	return body
}

// check sends obj (shape name)'s keys, an undocumented key, its required keys left out and its bounds.
func (n *nestedWalk) check(t *testing.T, w documentedWrite, name, path string, obj map[string]any, at func(any) any) {
	e := n.e
	props := obj["properties"].(map[string]any)
	contexts := nestedContext[name]
	if len(contexts) == 0 {
		contexts = []nestedCtx{{}}
	}
	send := func(c nestedCtx, obj m) *response {
		return e.do(w.method, w.url, e.full, c.in(at(c.with(obj))))
	}
	for _, key := range jsonbody.SortedKeys(props) {
		kp := jsonbody.Join(path, key)
		taken := slices.ContainsFunc(contexts, func(c nestedCtx) bool {
			return detailAt(send(c, m{key: nil}), kp) != quire.ReasonUnknownField
		})
		if !taken {
			t.Errorf("documented key %s answered unknown_field", kp)
		}
	}
	if d := detailAt(send(contexts[0], m{"undocumented": 1}), jsonbody.Join(path, "undocumented")); d != quire.ReasonUnknownField {
		t.Errorf("undocumented key at %s: detail %q, want unknown_field", path, d)
	}
	if required, _ := obj["required"].([]any); len(required) > 0 {
		r := send(nestedCtx{body: contexts[0].body}, m{})
		for _, key := range required {
			if d := detailAt(r, jsonbody.Join(path, key.(string))); d != quire.ReasonRequired {
				t.Errorf("required key %s.%s left out: detail %q, want required; %d %.300s", path, key, d, r.status, r.raw)
			}
		}
	}
	for _, key := range jsonbody.SortedKeys(props) {
		for _, b := range bounds(props[key].(map[string]any)) {
			kp := jsonbody.Join(path, key)
			if r := send(contextFor(name, key), m{key: b.beyond}); detailAt(r, kp) == "" {
				t.Errorf("%s beyond a documented bound: no detail; %d %.300s", kp, r.status, r.raw)
			}
		}
	}
}
