package httpapi

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestRequestBodiesMatchTheDocument keeps the documented request structs and the decoders
// together: every write in the served document takes JSON only (a RawBody []byte field once
// added application/octet-stream, which the route refused); each top-level key its request
// schema lists is taken (never unknown_field), a key it does not list is refused as
// unknown_field at its path, and a body without the keys the schema requires names each of
// them (required). The bounds the schema sets (enums, lengths, ranges, counts) are the
// decoder's: a value beyond each is refused at its key, one at it is not refused for it.
func TestRequestBodiesMatchTheDocument(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		writes, _ := documentedWrites(t, e)
		for _, w := range writes {
			method, url, schema := w.method, w.url, w.schema
			t.Run(method+" "+w.path, func(t *testing.T) {
				props, _ := schema["properties"].(map[string]any)
				for key, prop := range props {
					r := e.do(method, url, e.full, map[string]any{key: nil})
					d := detailAt(r, key)
					if d == "" && w.path == "/v2/blocks/{block_id}" {
						d = detailAt(r, "type") // a block type not the block's: immutable
					}
					if d == quire.ReasonUnknownField {
						t.Errorf("documented key %q answered unknown_field", key)
					}
					// Null is taken (as the key left out, or as its documented meaning) exactly
					// when the document says so.
					if taken := d == ""; taken != nullable(prop.(map[string]any)) {
						t.Errorf("%s: documented nullable %v, but null answered %q", key, !taken, d)
					}
				}
				for key, prop := range props {
					for _, b := range bounds(prop.(map[string]any)) {
						if r := e.do(method, url, e.full, map[string]any{key: b.beyond}); detailAt(r, key) == "" {
							t.Errorf("%s beyond a documented bound: no detail at %s; %d %.300s", key, key, r.status, r.raw)
						}
						// At the bound, the value may break another rule (a URL's form), not this one.
						if d := detailAt(e.do(method, url, e.full, map[string]any{key: b.at}), key); b.reason != "" && d == b.reason {
							t.Errorf("%s at a documented bound: detail %s", key, d)
						}
					}
				}
				if schema["additionalProperties"] == false {
					if d := detailAt(e.do(method, url, e.full, map[string]any{"undocumented": 1}), "undocumented"); d != quire.ReasonUnknownField {
						t.Errorf("undocumented key: detail %q, want unknown_field", d)
					}
				}
				required, _ := schema["required"].([]any)
				if len(required) == 0 {
					return
				}
				r := e.do(method, url, e.full, map[string]any{})
				for _, key := range required {
					if d := detailAt(r, key.(string)); d != quire.ReasonRequired {
						t.Errorf("required key %q left out: detail %q, want required; %d %s", key, d, r.status, r.raw)
					}
				}
			})
		}
	})
}

// documentedWrite is one operation of the served document that takes a body: its method,
// documented path, a URL of it on e's content, and its body's schema.
type documentedWrite struct {
	method, path, url string
	schema            map[string]any
}

// documentedWrites are the writes with a body that the document e serves lists, over content
// made for their path parameters, and the document's component schemas.
func documentedWrites(t *testing.T, e *env) ([]documentedWrite, map[string]any) {
	t.Helper()
	page := e.mkPage(t, e.full, wsParent, "Home")
	block := e.appendKids(t, page, para("x"))[0]["id"].(string)
	_, db := e.newDatabase(t, map[string]any{"Name": map[string]any{"title": map[string]any{}}})
	dbID := db["id"].(string)
	view := e.mkView(t, dbID, map[string]any{"name": "All", "type": "table"}).body["id"].(string)
	mm := e.mkMindMap(t, e.full, map[string]any{"parent": pageParent(page), "title": "Map"}).body["id"].(string)
	hook := e.mkWebhook(t, "https://hooks.example.com/")["id"].(string)
	ids := map[string]string{"page_id": page, "block_id": block, "database_id": dbID, "view_id": view, "mind_map_id": mm, "webhook_id": hook}

	r := e.do(http.MethodGet, "/v2/openapi.json", "", nil)
	wantOK(t, r, 200)
	schemas := r.body["components"].(map[string]any)["schemas"].(map[string]any)
	var writes []documentedWrite
	for path, item := range r.body["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			rb, ok := op.(map[string]any)["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			content := rb["content"].(map[string]any)
			if len(content) != 1 || content["application/json"] == nil {
				t.Errorf("%s %s takes %v; every body is JSON", method, path, slices.Collect(maps.Keys(content)))
				continue
			}
			schema := resolve(schemas, content["application/json"].(map[string]any)["schema"].(map[string]any))
			url := path
			for name, id := range ids {
				url = strings.ReplaceAll(url, "{"+name+"}", id)
			}
			writes = append(writes, documentedWrite{strings.ToUpper(method), path, url, schema})
		}
	}
	slices.SortFunc(writes, func(a, b documentedWrite) int { return strings.Compare(a.method+a.path, b.method+b.path) })
	if len(writes) < 17 {
		t.Fatalf("the document lists %d writes with a body, want at least 17", len(writes))
	}
	return writes, schemas
}

// resolve is the component schema s refers to, or s.
func resolve(schemas map[string]any, s map[string]any) map[string]any {
	if ref, ok := s["$ref"].(string); ok {
		return schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
	}
	return s
}

// nullable tells whether a property's schema takes null: a type list with "null", or a null
// variant.
func nullable(prop map[string]any) bool {
	if types, ok := prop["type"].([]any); ok && slices.Contains(types, any("null")) {
		return true
	}
	variants, _ := prop["oneOf"].([]any)
	return slices.ContainsFunc(variants, func(v any) bool { return v.(map[string]any)["type"] == "null" })
}

// bound is a value a documented property's schema takes at one of its bounds (an enum, a
// length, a range, a count) and one just beyond it, with the reason a decoder gives for
// breaking that bound.
type bound struct {
	at, beyond any
	reason     string
}

// bounds are the bounds the schema of prop sets.
func bounds(prop map[string]any) []bound {
	var out []bound
	if e, ok := prop["enum"].([]any); ok {
		out = append(out, bound{e[0], fmt.Sprint(e[0]) + "-not", quire.ReasonInvalidValue})
	}
	if n, ok := prop["maxLength"].(float64); ok {
		out = append(out, bound{strings.Repeat("a", int(n)), strings.Repeat("a", int(n)+1), quire.ReasonTooLong})
	}
	if n, ok := prop["minLength"].(float64); ok && n > 0 {
		out = append(out, bound{strings.Repeat("a", int(n)), strings.Repeat("a", int(n)-1), ""})
	}
	if n, ok := prop["maximum"].(float64); ok {
		out = append(out, bound{n, n + 1, quire.ReasonOutOfRange})
	}
	if n, ok := prop["minimum"].(float64); ok {
		out = append(out, bound{n, n - 1, quire.ReasonOutOfRange})
	}
	var item any = map[string]any{}
	if items, _ := prop["items"].(map[string]any); items["type"] == "string" {
		item = "x"
	}
	if n, ok := prop["maxItems"].(float64); ok {
		out = append(out, bound{slices.Repeat([]any{item}, int(n)), slices.Repeat([]any{item}, int(n)+1), quire.ReasonTooMany})
	}
	if n, ok := prop["minItems"].(float64); ok && n > 0 {
		out = append(out, bound{slices.Repeat([]any{item}, int(n)), slices.Repeat([]any{item}, int(n)-1), ""})
	}
	return out
}

// detailAt is the reason of r's detail at path, or "".
func detailAt(r *response, path string) string {
	details, _ := r.body["details"].([]any)
	i := slices.IndexFunc(details, func(d any) bool { return d.(map[string]any)["path"] == path })
	if i < 0 {
		return ""
	}
	return details[i].(map[string]any)["reason"].(string)
}

// TestBodyMessages: the messages of a body that is no JSON say where it breaks, a wrong
// Content-Type is named, and a limit reads the same for a query parameter as for the body.
func TestBodyMessages(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		for _, tc := range []struct {
			name, method, path string
			body               any
			headers            []string
			want               string
		}{
			{"cut short", "POST", "/v2/pages", `{"parent":`, nil, "The request body is not valid JSON: it ends too soon."},
			{"malformed", "POST", "/v2/pages", "{\n  \"parent\" {}}", nil,
				"The request body is not valid JSON: expected ':' after the key at line 2, column 12."},
			{"wrong content type", "POST", "/v2/pages", `{}`, []string{"Content-Type", "text/plain"},
				`The request body must be JSON: Content-Type is "text/plain", not application/json.`},
			{"page_size in the query", "GET", "/v2/pages?page_size=500", nil, nil, "page_size must be between 1 and 100."},
			{"page_size in the body", "POST", "/v2/search", map[string]any{"page_size": 500}, nil, "page_size must be between 1 and 100."},
			{"cursor in the query", "GET", "/v2/pages?start_cursor=" + strings.Repeat("c", 2001), nil, nil, "start_cursor has at most 2000 characters."},
			{"text", "POST", "/v2/pages", map[string]any{"properties": titleOf(strings.Repeat("t", 2001))}, nil, "Text has at most 2000 characters."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(tc.method, tc.path, e.full, tc.body, tc.headers...)
				if r.status != 400 || r.body["message"] != tc.want {
					t.Errorf("%d %s, want 400 with message %q", r.status, r.raw, tc.want)
				}
			})
		}
	})
}
