package httpapi

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)
	reqRE  = regexp.MustCompile(`"request_id":"[^"]*"`)
)

// masked is an answer with its ids (numbered by first appearance), times and request id
// masked, so that two writes of the same thing compare equal.
func masked(raw []byte) string {
	ids := map[string]string{}
	s := uuidRE.ReplaceAllStringFunc(string(raw), func(id string) string {
		if _, ok := ids[id]; !ok {
			ids[id] = "ID" + strings.Repeat("#", len(ids)+1)
		}
		return ids[id]
	})
	return reqRE.ReplaceAllString(timeRE.ReplaceAllString(s, "TIME"), `"request_id":"R"`)
}

// TestFastBodies_AnswerAsReference: an append body and a mutations batch that the fast path
// reads answer as the same body does through the reference path (here made to give up by a
// member that changes nothing: "after": null, an empty children array, an envelope's type),
// on both engines; a body the fast path reads but its parent refuses answers the reference's
// error.
func TestFastBodies_AnswerAsReference(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		children := `[{"type":"paragraph","paragraph":{"rich_text":[{"type":"text","text":{"content":"one"}}]}},` +
			`{"to_do":{"checked":true,"rich_text":[{"text":{"content":"two é"}},{"text":{"content":"<&>"}}]}},{"heading_2":{"rich_text":[]}}]`
		if _, ok := blocks.ReadAppend([]byte(`{"children":` + children + `}`)); !ok {
			t.Fatal("the fast path gave up on the append")
		}
		var answers [2]string
		for i, body := range []string{`{"children":` + children + `}`, `{"after":null,"children":` + children + `}`} {
			page := e.newPage("Page")
			r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, body)
			wantOK(t, r, http.StatusOK)
			got := e.do(http.MethodGet, "/v2/blocks/"+page+"/children", e.full, nil)
			answers[i] = masked(r.raw) + "\n" + masked(got.raw)
		}
		if answers[0] != answers[1] {
			t.Fatalf("append: the fast path answered\n%s\nthe reference path\n%s", answers[0], answers[1])
		}
		table := e.do(http.MethodPatch, "/v2/blocks/"+e.newPage("T")+"/children", e.full,
			`{"children":[{"table":{"table_width":1,"children":[{"table_row":{"cells":[[]]}}]}}]}`)
		wantOK(t, table, http.StatusOK)
		tableID := table.body["results"].([]any)[0].(map[string]any)["id"].(string)
		wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+tableID+"/children", e.full, `{"children":`+children+`}`),
			400, "validation_error", "children[0].type", "invalid_value")

		op := func(i int, extra string) string {
			return `{"op":"create"` + extra + `,"properties":{"Name":{"title":[{"text":{"content":"r` + strings.Repeat("x", i) +
				`"}}]},"Points":{"number":` + strings.Repeat("1", i+1) + `},"Status":{"select":{"name":"Done"}},"Tags":{"multi_select":[{"name":"b"},{"name":"a"}]}}}`
		}
		batch := func(extra string) string {
			ops := make([]string, 5)
			for i := range ops {
				ops[i] = op(i, extra)
			}
			return `{"mutations":[` + strings.Join(ops, ",") + `]}`
		}
		var batches [3]string
		for i, body := range []string{batch(""), batch(`,"children":[]`),
			strings.ReplaceAll(batch(""), `"Points":{"number"`, `"Points":{"type":"number","number"`)} {
			_, db := e.newDatabase(t, taskSchema()) // a database each, so that the unique_id numbers are the same
			r := e.do(http.MethodPost, "/v2/databases/"+db["id"].(string)+"/mutations", e.full, body)
			wantOK(t, r, http.StatusOK)
			batches[i] = masked(r.raw)
		}
		if batches[0] != batches[1] || batches[0] != batches[2] {
			t.Fatalf("mutations: the fast path answered\n%s\nthe reference paths\n%s\n%s", batches[0], batches[1], batches[2])
		}
		_, db := e.newDatabase(t, taskSchema())
		wantDetail(t, e.do(http.MethodPost, "/v2/databases/"+db["id"].(string)+"/mutations", e.full, `{"mutations":[{"op":"create","properties":{"Status":{"select":{"name":"Nope"}}}}]}`),
			400, "validation_error", "mutations[0].properties.Status.select.name", "invalid_value")
	})
}
