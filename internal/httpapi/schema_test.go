package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/mindmap"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/testdb"
)

// servedSchemas fetches /v2/openapi.json from a real server and returns its component schemas.
// The document does not depend on the engine: SQLite is enough.
func servedSchemas(t *testing.T) map[string]map[string]any {
	t.Helper()
	e := newEnv(t, testdb.SQLite(t))
	r := e.do(http.MethodGet, "/v2/openapi.json", "", nil)
	if r.status != http.StatusOK {
		t.Fatalf("GET /v2/openapi.json: %d %s", r.status, r.raw)
	}
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(r.raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Components.Schemas
}

// TestDocumentUnionsFollowTheTables checks that every kind the packages' tables know has its
// variant in the document, so a block type, property type, filter key or edit op added to a
// table cannot be left out of the generated clients.
func TestDocumentUnionsFollowTheTables(t *testing.T) {
	schemas := servedSchemas(t)
	var blockTypes, writable, propTypes, writableProps, filterKeys, ops []string
	for _, d := range blocks.Describe() {
		blockTypes = append(blockTypes, d.Type)
		if !d.ReadOnly {
			writable = append(writable, d.Type)
		}
	}
	for _, d := range properties.Describe() {
		propTypes = append(propTypes, d.Type)
		if !d.Computed {
			writableProps = append(writableProps, d.Type)
		}
	}
	for _, fk := range dbquery.DescribeFilters() {
		filterKeys = append(filterKeys, fk.Key)
	}
	for _, d := range mindmap.DescribeEdits() {
		ops = append(ops, d.Op)
	}
	cases := []struct {
		schema, suffix string
		discriminated  bool
		want           []string
	}{
		{"Block", "Block", true, blockTypes},
		{"BlockInput", "BlockInput", false, writable},
		{"PropertyValue", "PropertyValue", true, propTypes},
		{"PropertyValueInput", "PropertyValueInput", false, writableProps},
		{"DatabaseProperty", "DatabaseProperty", true, propTypes},
		{"DatabasePropertyInput", "DatabasePropertyInput", false, propTypes},
		{"LeafQueryFilter", "Filter", false, append(slices.Clone(filterKeys), "created_time_timestamp", "last_edited_time_timestamp")},
		{"MindMapEdit", "MindMapEdit", true, ops},
	}
	for _, tc := range cases {
		s, ok := schemas[tc.schema]
		if !ok {
			t.Errorf("the document has no schema %s", tc.schema)
			continue
		}
		var got []string
		for _, key := range []string{"oneOf", "anyOf"} {
			list, _ := s[key].([]any)
			for _, v := range list {
				ref, _ := v.(map[string]any)["$ref"].(string)
				if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok {
					got = append(got, name)
				}
			}
		}
		var want []string
		for _, k := range tc.want {
			want = append(want, typeName(k)+tc.suffix)
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s variants = %v, want %v", tc.schema, got, want)
		}
		disc, _ := s["discriminator"].(map[string]any)
		if tc.discriminated && len(disc["mapping"].(map[string]any)) != len(tc.want) {
			t.Errorf("%s discriminator = %v, want a mapping of each of %v", tc.schema, disc, tc.want)
		}
	}
}

// TestDocumentHasNoOpaqueObjects guards what made generated clients unusable: a default on a
// property (openapi-typescript makes the property required), and a content object described as
// a bare {"type":"object"} under additionalProperties (openapi-typescript reads it as
// Record<string, never>, so no block content could be written).
func TestDocumentHasNoOpaqueObjects(t *testing.T) {
	for name, s := range servedSchemas(t) {
		walkJSONSchema(name, s, func(path string, s map[string]any) {
			if props, ok := s["properties"].(map[string]any); ok {
				for key, p := range props {
					if _, has := p.(map[string]any)["default"]; has {
						t.Errorf("%s.%s has a default; put it in the description", path, key)
					}
				}
			}
			if ap, ok := s["additionalProperties"].(map[string]any); ok && ap["type"] == "object" && ap["properties"] == nil && ap["additionalProperties"] == nil {
				t.Errorf("%s has additionalProperties {type: object}, which generators read as an empty object", path)
			}
		})
	}
}

// walkJSONSchema calls fn on s and every schema nested in it, with a readable path.
func walkJSONSchema(path string, s map[string]any, fn func(string, map[string]any)) {
	fn(path, s)
	for key, v := range s {
		switch x := v.(type) {
		case map[string]any:
			if key == "properties" {
				for name, p := range x {
					if ps, ok := p.(map[string]any); ok {
						walkJSONSchema(path+"."+name, ps, fn)
					}
				}
				continue
			}
			if key != "discriminator" {
				walkJSONSchema(path+"."+key, x, fn)
			}
		case []any:
			for _, e := range x {
				if es, ok := e.(map[string]any); ok {
					walkJSONSchema(path+"."+key+"[]", es, fn)
				}
			}
		}
	}
}

// typedCases are conformance cases (openapi_test.go) for the per-type schemas: writes of many
// block types, property types, filters and edits that the document must accept and whose answers
// it must describe, and malformed ones it must refuse as the server does.
func typedCases(t testing.TB, e *env) []conformanceCase {
	t.Helper()
	pid, db := e.newDatabase(t, taskSchema())
	id := db["id"].(string)
	mm := e.mkMindMap(t, e.full, map[string]any{"parent": pageParent(pid), "title": "Map"}).body
	root := mm["root"].(map[string]any)["id"].(string)
	mid := mm["id"].(string)
	rich := `[{"text":{"content":"x"},"annotations":{"bold":true}},{"mention":{"page":{"id":"` + pid + `"}}},` +
		`{"type":"mention","mention":{"type":"date","date":{"start":"2026-01-02"}}},{"mention":{"user":{"id":"` + e.owner.ID + `"}}}]`
	blocks := `[{"type":"heading_2","heading_2":{"rich_text":` + rich + `,"is_toggleable":true,"children":[{"paragraph":{"rich_text":[]}}]}},` +
		`{"to_do":{"rich_text":` + rich + `,"checked":true,"text_color":"red","background_color":"light_blue"}},` +
		`{"code":{"rich_text":[],"language":"go","caption":[]}},{"callout":{"rich_text":[],"icon":{"type":"emoji","emoji":"💡"}}},` +
		`{"equation":{"expression":"e=mc^2"}},{"divider":{}},{"bookmark":{"url":"https://example.com"}},` +
		`{"image":{"type":"external","external":{"url":"https://example.com/a.png"}}},{"link_to_page":{"type":"page_id","page_id":"` + pid + `"}},` +
		`{"table":{"table_width":2,"has_column_header":true,"children":[{"table_row":{"cells":[[],` + rich + `]}}]}},` +
		`{"column_list":{"children":[{"column":{"children":[{"quote":{"rich_text":[]}}]}},{"column":{"children":[{"toggle":{"rich_text":[]}}]}}]}}]`
	record := `{"parent":{"database_id":"` + id + `"},"properties":{"Name":{"title":` + rich + `},"Status":{"select":{"name":"Todo"}},` +
		`"Tags":{"multi_select":[{"name":"a"}]},"Points":{"number":2.5},"Notes":[],"Done":{"checkbox":true},` +
		`"Due":{"date":{"start":"2026-01-02","end":null}},"Link":{"url":"https://example.com"},"Owner":{"people":[{"id":"` + e.owner.ID + `"}]}}}`
	query := `{"filter":{"or":[{"and":[{"property":"Points","number":{"greater_than":1}},{"property":"Tags","multi_select":{"contains":"a"}}]},` +
		`{"timestamp":"created_time","created_time":{"past_week":{}}},{"property":"Notes","rich_text":{"is_empty":true}}]},` +
		`"sorts":[{"timestamp":"created_time","direction":"descending"}]}`
	post := func(name, op, path, body string, status int) conformanceCase {
		return conformanceCase{name: name, op: op, method: http.MethodPost, path: path, token: e.full, body: body, status: status}
	}
	patch := func(name, op, path, body string, status int) conformanceCase {
		c := post(name, op, path, body, status)
		c.method = http.MethodPatch
		return c
	}
	return []conformanceCase{
		patch("typed blocks", "append-block-children", "/v2/blocks/"+pid+"/children", `{"children":`+blocks+`}`, 200),
		{name: "typed blocks read", op: "list-block-children", path: "/v2/blocks/" + pid + "/children?page_size=100", token: e.full, status: 200},
		patch("paragraph without rich_text", "append-block-children", "/v2/blocks/"+pid+"/children", `{"children":[{"paragraph":{}}]}`, 400),
		patch("mention of no kind", "append-block-children", "/v2/blocks/"+pid+"/children", `{"children":[{"paragraph":{"rich_text":[{"mention":{"type":"date","when":"now"}}]}}]}`, 400),
		patch("unknown text colour", "append-block-children", "/v2/blocks/"+pid+"/children", `{"children":[{"paragraph":{"rich_text":[],"text_color":"teal"}}]}`, 400),
		post("typed record", "create-page", "/v2/pages", record, 200),
		post("record with a wrong value shape", "create-page", "/v2/pages", `{"parent":{"database_id":"`+id+`"},"properties":{"Done":{"checkbox":"yes"}}}`, 400),
		post("typed query", "query-database", "/v2/databases/"+id+"/query", query, 200),
		post("query with an operator the key lacks", "query-database", "/v2/databases/"+id+"/query", `{"filter":{"property":"Status","select":{"greater_than":1}}}`, 400),
		post("typed database", "create-database", "/v2/databases", `{"parent":{"page_id":"`+pid+`"},"properties":{"Name":{"title":{}},`+
			`"N":{"number":{"format":"euro"}},"K":{"type":"unique_id","unique_id":{"prefix":"K"}},"S":{"status":{}}}}`, 200),
		patch("typed edits", "update-mind-map", "/v2/mind-maps/"+mid, `{"edits":[{"op":"add","parent_id":"`+root+`","node":{"text":"a"},"position":{"type":"start"}}]}`, 200),
		patch("delete edit with a node", "update-mind-map", "/v2/mind-maps/"+mid, `{"edits":[{"op":"delete","node_id":"`+root+`","node":{"text":"a"}}]}`, 400),
	}
}
