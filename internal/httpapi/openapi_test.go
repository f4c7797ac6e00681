package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// conformanceCase is one real request whose real answer must match the served document.
type conformanceCase struct {
	name    string
	op      string // operationId the document must route the request to
	method  string // GET when empty
	path    string // with query
	body    string // JSON, sent with Content-Type: application/json when not empty
	token   string // "" sends no Authorization header
	headers []string
	status  int
	// semantic marks a 400 that no schema can express (a cycle, a limit inside a block's
	// free-form content): the document accepts the request and the server still refuses it.
	semantic bool
}

// TestOpenAPIConformance loads the served /v2/openapi.json with kin-openapi, validates it, and
// checks real answers of the running server against it: every documented operation needs a 2xx
// case here (and a 401 case when it documents bearer security), so a route added without one
// fails this test.
func TestOpenAPIConformance(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		ctx := context.Background()

		docRes := e.do(http.MethodGet, "/v2/openapi.json", "", nil)
		if docRes.status != http.StatusOK {
			t.Fatalf("GET /v2/openapi.json: %d %s", docRes.status, docRes.raw)
		}
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(docRes.raw)
		if err != nil {
			t.Fatalf("load the document: %v", err)
		}
		if err := doc.Validate(loader.Context); err != nil {
			t.Fatalf("the document is not valid OpenAPI: %v", err)
		}
		if !doc.IsOpenAPI31OrLater() {
			t.Fatalf("openapi = %q, want 3.1", doc.OpenAPI)
		}
		if len(doc.Servers) != 1 || doc.Servers[0].URL != e.srv.URL {
			t.Fatalf("servers = %v, want the one server %s", doc.Servers, e.srv.URL)
		}
		router, err := gorillamux.NewRouter(doc)
		if err != nil {
			t.Fatal(err)
		}

		checkDocumentRules(t, e, doc)
		docETag, metaETag := checkDocumentMeta(t, e, doc, docRes)

		// Fixtures: a second person, so pages have a next_cursor, and tokens short of something.
		if _, err := e.svc.CreateUser(ctx, e.ws.ID, "Grace Hopper", "grace@example.com"); err != nil {
			t.Fatal(err)
		}
		var noEmailScopes []quire.Scope
		for _, sc := range quire.AllScopes {
			if sc != quire.UsersEmailRead {
				noEmailScopes = append(noEmailScopes, sc)
			}
		}
		noEmail := e.token(noEmailScopes, true)                                      // person.email is null
		pagesOnly := e.token([]quire.Scope{quire.PagesRead}, true)                   // no users.read
		grantsOnly := e.token([]quire.Scope{quire.UsersRead}, false, seedNode(t, e)) // not workspace-scoped
		owner := e.owner.ID
		unknown := "7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"

		cases := []conformanceCase{
			{name: "me", op: "retrieve-bot-user", path: "/v2/users/me", token: e.full, status: 200},
			{name: "me without users scopes", op: "retrieve-bot-user", path: "/v2/users/me", token: pagesOnly, status: 200},
			{name: "me without token", op: "retrieve-bot-user", path: "/v2/users/me", status: 401},
			{name: "me with unknown token", op: "retrieve-bot-user", path: "/v2/users/me", token: "qr_not_a_token", status: 401},

			{name: "user with email", op: "retrieve-user", path: "/v2/users/" + owner, token: e.full, status: 200},
			{name: "user with null email", op: "retrieve-user", path: "/v2/users/" + owner, token: noEmail, status: 200},
			{name: "user without token", op: "retrieve-user", path: "/v2/users/" + owner, status: 401},
			{name: "user missing users.read", op: "retrieve-user", path: "/v2/users/" + owner, token: pagesOnly, status: 403},
			{name: "unknown user", op: "retrieve-user", path: "/v2/users/" + unknown, token: e.full, status: 404},
			{name: "user id not a uuid", op: "retrieve-user", path: "/v2/users/not-a-uuid", token: e.full, status: 400},

			{name: "users", op: "list-users", path: "/v2/users", token: e.full, status: 200},
			{name: "users first page", op: "list-users", path: "/v2/users?page_size=1", token: noEmail, status: 200},
			{name: "users without token", op: "list-users", path: "/v2/users", status: 401},
			{name: "users missing users.read", op: "list-users", path: "/v2/users", token: pagesOnly, status: 403},
			{name: "users with a grants-only token", op: "list-users", path: "/v2/users", token: grantsOnly, status: 403},
			{name: "users page_size too big", op: "list-users", path: "/v2/users?page_size=500", token: e.full, status: 400},
			{name: "users page_size zero", op: "list-users", path: "/v2/users?page_size=0", token: e.full, status: 400},
			{name: "users page_size not a number", op: "list-users", path: "/v2/users?page_size=abc", token: e.full, status: 400},

			{name: "workspace", op: "retrieve-workspace", path: "/v2/workspace", token: e.full, status: 200},
			{name: "workspace with a grants-only token", op: "retrieve-workspace", path: "/v2/workspace", token: grantsOnly, status: 200},
			{name: "workspace without token", op: "retrieve-workspace", path: "/v2/workspace", status: 401},

			{name: "document", op: "retrieve-openapi-document", path: "/v2/openapi.json", status: 200},
			{name: "document not modified", op: "retrieve-openapi-document", path: "/v2/openapi.json",
				headers: []string{"If-None-Match", docETag}, status: 304},
			{name: "document changed", op: "retrieve-openapi-document", path: "/v2/openapi.json",
				headers: []string{"If-None-Match", `"0123"`}, status: 200},
			{name: "meta", op: "retrieve-openapi-meta", path: "/v2/openapi/meta", status: 200},
			{name: "meta not modified", op: "retrieve-openapi-meta", path: "/v2/openapi/meta",
				headers: []string{"If-None-Match", metaETag}, status: 304},
		}
		cases = append(cases, contentCases(t, e, grantsOnly, pagesOnly, unknown)...)
		cases = append(cases, searchCases(t, e)...)
		cases = append(cases, viewCases(t, e, pagesOnly, unknown)...)
		cases = append(cases, fileCases(t, e, pagesOnly, unknown)...)
		cases = append(cases, mindMapCases(t, e, pagesOnly, unknown)...)
		cases = append(cases, databaseCases(t, e, unknown)...)
		cases = append(cases, typedCases(t, e)...)
		cases = append(cases, eventCases(t, e, pagesOnly)...)
		cases = append(cases, webhookCases(t, e)...)

		// Every documented operation needs a 2xx case, and a 401 case when it documents a token.
		covered := map[string]map[int]bool{}
		for _, tc := range cases {
			if covered[tc.op] == nil {
				covered[tc.op] = map[int]bool{}
			}
			covered[tc.op][tc.status] = true
		}
		for _, o := range documentedOperations(doc) {
			has2xx := false
			for status := range covered[o.op.OperationID] {
				has2xx = has2xx || status/100 == 2
			}
			if !has2xx {
				t.Errorf("%s %s (%s) has no 2xx case in the conformance table", o.method, o.path, o.op.OperationID)
			}
			if o.op.Security != nil && len(*o.op.Security) > 0 && !covered[o.op.OperationID][401] {
				t.Errorf("%s %s (%s) needs a token but has no 401 case in the conformance table", o.method, o.path, o.op.OperationID)
			}
		}

		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) { runConformanceCase(t, e, router, tc) })
		}
	})
}

// conformanceOptions validate formats the document uses that kin-openapi leaves unchecked by
// default (uuid), and fail on answers with a status the operation does not document.
func conformanceOptions() *openapi3filter.Options {
	return &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		SkipSettingDefaults:   true,
		IncludeResponseStatus: true,
		MultiError:            true,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{
			openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
		},
	}
}

func runConformanceCase(t *testing.T, e *env, router routers.Router, tc conformanceCase) {
	ctx := context.Background()
	method := tc.method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequest(method, e.srv.URL+tc.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tc.body != "" {
		req.Header.Set("Content-Type", "application/json")
		// Both the server and ValidateRequest read the body: give each a fresh copy.
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(tc.body)), nil }
		req.Body, _ = req.GetBody()
		req.ContentLength = int64(len(tc.body))
	}
	if tc.token != "" {
		req.Header.Set("Authorization", "Bearer "+tc.token)
	}
	for i := 0; i+1 < len(tc.headers); i += 2 {
		req.Header.Set(tc.headers[i], tc.headers[i+1])
	}
	route, pathParams, err := router.FindRoute(req)
	if err != nil {
		t.Fatalf("the document has no operation for %s %s: %v", method, tc.path, err)
	}
	if route.Operation.OperationID != tc.op {
		t.Fatalf("%s %s routes to %s in the document, want %s", method, tc.path, route.Operation.OperationID, tc.op)
	}

	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != tc.status {
		t.Fatalf("status = %d, want %d; body %s", res.StatusCode, tc.status, body)
	}
	// ValidateResponse skips 304 without looking; the status must still be documented.
	if route.Operation.Responses.Status(res.StatusCode) == nil {
		t.Fatalf("status %d is not documented for %s", res.StatusCode, tc.op)
	}

	opts := conformanceOptions()
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams, Route: route, Options: opts}
	// The document and the server agree on which requests are malformed: the 400 cases break
	// the documented parameters, and every other case is a valid request.
	if req.GetBody != nil {
		req.Body, _ = req.GetBody()
	}
	reqErr := openapi3filter.ValidateRequest(ctx, in)
	if tc.status == http.StatusBadRequest && reqErr == nil && !tc.semantic {
		t.Errorf("the server answers 400 but the document accepts the request")
	}
	if tc.status != http.StatusBadRequest && reqErr != nil {
		t.Errorf("the request does not match the document: %v", reqErr)
	}

	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode,
		Header: res.Header, Options: opts}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Fatalf("the answer does not match the document: %v\nbody %s", err, body)
	}

	switch {
	case res.StatusCode == http.StatusNotModified:
		if len(body) != 0 {
			t.Errorf("304 has a body: %s", body)
		}
		if got := res.Header.Get("ETag"); got != req.Header.Get("If-None-Match") {
			t.Errorf("304 ETag = %q, want %q", got, req.Header.Get("If-None-Match"))
		}
	case res.StatusCode >= 400:
		r := &response{status: res.StatusCode, header: res.Header, raw: body}
		if err := json.Unmarshal(body, &r.body); err != nil {
			t.Fatalf("error answer is not JSON: %v: %s", err, body)
		}
		checkErrorShape(t, r)
	}
}

type documentedOperation struct {
	method, path string
	op           *openapi3.Operation
}

// documentedOperations lists every path and method of the document, sorted.
func documentedOperations(doc *openapi3.T) []documentedOperation {
	var out []documentedOperation
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			out = append(out, documentedOperation{method: method, path: path, op: op})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].path != out[j].path {
			return out[i].path < out[j].path
		}
		return out[i].method < out[j].method
	})
	return out
}

// checkDocumentRules asserts what every operation of the document must say: no 422 (our
// validation errors are 400), a summary, and bearer security exactly on the routes that need a
// token, as the server's own route table declares them.
func checkDocumentRules(t *testing.T, e *env, doc *openapi3.T) {
	t.Helper()
	bearer := doc.Components.SecuritySchemes["bearer"]
	if bearer == nil || bearer.Value == nil || bearer.Value.Type != "http" || bearer.Value.Scheme != "bearer" {
		t.Fatalf("components.securitySchemes.bearer is not HTTP bearer: %+v", bearer)
	}
	s, ok := e.srv.Config.Handler.(*Server) // its route table declares which routes are public
	if !ok {
		t.Fatalf("the test server's handler is %T", e.srv.Config.Handler)
	}
	ops := documentedOperations(doc)
	if len(ops) == 0 {
		t.Fatal("the document has no operations")
	}
	for _, o := range ops {
		id := o.method + " " + o.path + " (" + o.op.OperationID + ")"
		for code := range o.op.Responses.Map() {
			if code == "422" {
				t.Errorf("%s documents a 422 answer", id)
			}
		}
		if o.op.Summary == "" { // redocly's operation-summary, caught before the lint runs
			t.Errorf("%s has no summary", id)
		}
		rt, ok := s.routes[o.method+" "+o.path]
		if !ok {
			t.Errorf("%s is documented but not in the server's route table", id)
			continue
		}
		sec := o.op.Security
		switch {
		case rt.public:
			if sec == nil || len(*sec) != 0 {
				t.Errorf("%s needs no token but its security is %v, want []", id, sec)
			}
		case sec == nil || len(*sec) != 1:
			t.Errorf("%s needs a token but its security is %v, want [{bearer: []}]", id, sec)
		default:
			req := (*sec)[0]
			if scopes, ok := req["bearer"]; !ok || len(req) != 1 || len(scopes) != 0 {
				t.Errorf("%s needs a token but its security is %v, want [{bearer: []}]", id, *sec)
			}
			if o.op.Responses.Status(401) == nil || o.op.Responses.Status(403) == nil {
				t.Errorf("%s needs a token but does not document 401 and 403", id)
			}
		}
	}
}

// checkDocumentMeta asserts that /v2/openapi/meta describes the bytes just served, and returns
// the ETags of both document routes.
func checkDocumentMeta(t *testing.T, e *env, doc *openapi3.T, docRes *response) (docETag, metaETag string) {
	t.Helper()
	sum := sha256.Sum256(docRes.raw)
	etag := hex.EncodeToString(sum[:])
	docETag = docRes.header.Get("ETag")
	if docETag != `"`+etag+`"` {
		t.Errorf("openapi.json ETag = %s, want the quoted SHA-256 of the body %q", docETag, etag)
	}

	metaRes := e.do(http.MethodGet, "/v2/openapi/meta", "", nil)
	if metaRes.status != http.StatusOK {
		t.Fatalf("GET /v2/openapi/meta: %d %s", metaRes.status, metaRes.raw)
	}
	var meta struct {
		ETag        string `json:"etag"`
		GeneratedAt string `json:"generatedAt"`
		PathCount   int    `json:"pathCount"`
		SchemaCount int    `json:"schemaCount"`
	}
	if err := json.Unmarshal(metaRes.raw, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.ETag != etag {
		t.Errorf("meta etag = %s, want SHA-256 hex of /v2/openapi.json %s", meta.ETag, etag)
	}
	if meta.PathCount != doc.Paths.Len() {
		t.Errorf("meta pathCount = %d, the document has %d paths", meta.PathCount, doc.Paths.Len())
	}
	if meta.SchemaCount != len(doc.Components.Schemas) {
		t.Errorf("meta schemaCount = %d, the document has %d schemas", meta.SchemaCount, len(doc.Components.Schemas))
	}
	if at, err := time.Parse(time.RFC3339Nano, meta.GeneratedAt); err != nil || !at.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("meta generatedAt = %q, want the server's DocTime", meta.GeneratedAt)
	}
	msum := sha256.Sum256(metaRes.raw)
	metaETag = metaRes.header.Get("ETag")
	if metaETag != `"`+hex.EncodeToString(msum[:])+`"` {
		t.Errorf("meta ETag = %s, want the quoted SHA-256 of its body", metaETag)
	}
	if docETag == "" || metaETag == "" {
		t.Fatalf("document routes must send ETags: %q, %q", docETag, metaETag)
	}
	return docETag, metaETag
}

// contentCases are the conformance cases of pages, blocks, Markdown and workspace listings,
// over pages made here through the API. They run in order: later cases see earlier changes.
func contentCases(t testing.TB, e *env, grantsOnly, pagesOnly, unknown string) []conformanceCase {
	t.Helper()
	mk := func(body string) string {
		r := e.do(http.MethodPost, "/v2/pages", e.full, body)
		if r.status != 200 {
			t.Fatalf("fixture page: %d %s", r.status, r.raw)
		}
		return r.body["id"].(string)
	}
	top := mk(`{"parent":{"workspace":true},"properties":{"title":[{"text":{"content":"Top"}}]},` +
		`"children":[{"paragraph":{"rich_text":[{"text":{"content":"hello"}}]}},{"to_do":{"rich_text":[],"checked":true}}]}`)
	child := mk(`{"parent":{"page_id":"` + top + `"},"properties":{"title":[{"text":{"content":"Child"}}]},"markdown":"# Hi"}`)
	kids := e.do(http.MethodGet, "/v2/blocks/"+top+"/children", e.full, nil)
	blk := kids.body["results"].([]any)[0].(map[string]any)["id"].(string)
	para := `{"paragraph":{"rich_text":[{"text":{"content":"more"}}]}}`
	return []conformanceCase{
		{name: "create page", op: "create-page", method: "POST", path: "/v2/pages", token: e.full, status: 200,
			body: `{"parent":{"type":"workspace","workspace":true},"icon":{"type":"emoji","emoji":"📘"},"cover":{"type":"external","external":{"url":"https://example.com/c.png"}},"properties":{"title":{"title":[{"text":{"content":"New"}}]}}}`},
		{name: "create folder", op: "create-page", method: "POST", path: "/v2/pages", token: e.full, status: 200,
			body: `{"parent":{"page_id":"` + top + `"},"page_type":"folder"}`},
		{name: "create page unknown field", op: "create-page", method: "POST", path: "/v2/pages", token: e.full, status: 400,
			body: `{"parent":{"workspace":true},"colour":"red"}`},
		{name: "create page without token", op: "create-page", method: "POST", path: "/v2/pages", status: 401, body: `{"parent":{"workspace":true}}`},
		{name: "page", op: "retrieve-page", path: "/v2/pages/" + top, token: e.full, status: 200},
		{name: "unknown page", op: "retrieve-page", path: "/v2/pages/" + unknown, token: e.full, status: 404},
		{name: "page without token", op: "retrieve-page", path: "/v2/pages/" + top, status: 401},
		{name: "page out of reach", op: "retrieve-page", path: "/v2/pages/" + top, token: grantsOnly, status: 403},
		{name: "update page", op: "update-page", method: "PATCH", path: "/v2/pages/" + child, token: e.full, status: 200,
			body: `{"properties":{"title":[{"text":{"content":"Renamed"}}]},"icon":null}`},
		{name: "update page stale", op: "update-page", method: "PATCH", path: "/v2/pages/" + child, token: e.full, status: 409,
			body: `{"in_trash":false}`, headers: []string{"If-Match", `W/"999"`}},
		{name: "update page bad field", op: "update-page", method: "PATCH", path: "/v2/pages/" + child, token: e.full, status: 400,
			body: `{"title":"x"}`},
		{name: "update page without token", op: "update-page", method: "PATCH", path: "/v2/pages/" + child, status: 401, body: `{}`},
		{name: "move page", op: "move-page", method: "PATCH", path: "/v2/pages/" + child + "/move", token: e.full, status: 200,
			body: `{"parent":{"type":"workspace","workspace":true}}`},
		{name: "move page under itself", op: "move-page", method: "PATCH", path: "/v2/pages/" + top + "/move", token: e.full, status: 400,
			body: `{"parent":{"page_id":"` + top + `"}}`, semantic: true},
		{name: "move page without token", op: "move-page", method: "PATCH", path: "/v2/pages/" + top + "/move", status: 401, body: `{"parent":{"workspace":true}}`},
		{name: "pages", op: "list-pages", path: "/v2/pages?page_size=2", token: e.full, status: 200},
		{name: "pages without token", op: "list-pages", path: "/v2/pages", status: 401},
		{name: "markdown", op: "retrieve-page-markdown", path: "/v2/pages/" + top + "/content/markdown", token: e.full, status: 200},
		{name: "markdown of unknown page", op: "retrieve-page-markdown", path: "/v2/pages/" + unknown + "/content/markdown", token: e.full, status: 404},
		{name: "markdown without token", op: "retrieve-page-markdown", path: "/v2/pages/" + top + "/content/markdown", status: 401},
		{name: "replace markdown", op: "replace-page-markdown", method: "PUT", path: "/v2/pages/" + child + "/content/markdown",
			token: e.full, status: 200, body: `{"markdown":"# Title\n\n- one\n- two\n"}`},
		{name: "replace markdown without token", op: "replace-page-markdown", method: "PUT", path: "/v2/pages/" + child + "/content/markdown",
			status: 401, body: `{"markdown":""}`},
		{name: "block", op: "retrieve-block", path: "/v2/blocks/" + blk, token: e.full, status: 200},
		{name: "unknown block", op: "retrieve-block", path: "/v2/blocks/" + unknown, token: e.full, status: 404},
		{name: "block without token", op: "retrieve-block", path: "/v2/blocks/" + blk, status: 401},
		{name: "update block", op: "update-block", method: "PATCH", path: "/v2/blocks/" + blk, token: e.full, status: 200,
			body: `{"paragraph":{"rich_text":[{"text":{"content":"changed"}}],"text_color":"red"}}`},
		{name: "update block type", op: "update-block", method: "PATCH", path: "/v2/blocks/" + blk, token: e.full, status: 400,
			body: `{"type":"quote","quote":{"rich_text":[]}}`, semantic: true}, // the document cannot know the block's own type
		{name: "update block without token", op: "update-block", method: "PATCH", path: "/v2/blocks/" + blk, status: 401, body: `{}`},
		{name: "children", op: "list-block-children", path: "/v2/blocks/" + top + "/children?page_size=1", token: e.full, status: 200},
		{name: "children without token", op: "list-block-children", path: "/v2/blocks/" + top + "/children", status: 401},
		{name: "append", op: "append-block-children", method: "PATCH", path: "/v2/blocks/" + top + "/children", token: e.full, status: 200,
			body: `{"children":[` + para + `],"position":{"type":"start"}}`},
		{name: "append too long", op: "append-block-children", method: "PATCH", path: "/v2/blocks/" + top + "/children", token: e.full, status: 400,
			body: `{"children":[{"paragraph":{"rich_text":[{"text":{"content":"` + strings.Repeat("x", 2001) + `"}}]}}]}`, semantic: true},
		{name: "append without token", op: "append-block-children", method: "PATCH", path: "/v2/blocks/" + top + "/children", status: 401, body: `{"children":[]}`},
		{name: "top level", op: "list-workspace-pages", path: "/v2/workspace/pages", token: e.full, status: 200},
		{name: "team", op: "list-workspace-team", path: "/v2/workspace/pages/team?page_size=1", token: e.full, status: 200},
		{name: "top_level section", op: "list-workspace-top_level", path: "/v2/workspace/pages/top_level", token: e.full, status: 200},
		{name: "shared", op: "list-workspace-shared", path: "/v2/workspace/pages/shared", token: e.full, status: 200},
		{name: "private", op: "list-workspace-private", path: "/v2/workspace/pages/private", token: e.full, status: 200},
		{name: "team without token", op: "list-workspace-team", path: "/v2/workspace/pages/team", status: 401},
		{name: "top_level without token", op: "list-workspace-top_level", path: "/v2/workspace/pages/top_level", status: 401},
		{name: "shared without token", op: "list-workspace-shared", path: "/v2/workspace/pages/shared", status: 401},
		{name: "private without token", op: "list-workspace-private", path: "/v2/workspace/pages/private", status: 401},
		{name: "pages under a page", op: "list-pages", path: "/v2/pages?parent_id=" + top, token: e.full, status: 200},
		{name: "top level without token", op: "list-workspace-pages", path: "/v2/workspace/pages", status: 401},
		{name: "top level with a grants-only token", op: "list-workspace-pages", path: "/v2/workspace/pages", token: grantsOnly, status: 403},
		{name: "recent", op: "list-workspace-section", path: "/v2/workspace/pages/recent?page_size=1", token: e.full, status: 200},
		{name: "folders", op: "list-workspace-section", path: "/v2/workspace/pages/folders", token: pagesOnly, status: 200},
		{name: "trash", op: "list-workspace-section", path: "/v2/workspace/pages/trash", token: e.full, status: 200},
		{name: "unknown section", op: "list-workspace-section", path: "/v2/workspace/pages/starred", token: e.full, status: 400},
		{name: "section without token", op: "list-workspace-section", path: "/v2/workspace/pages/recent", status: 401},
	}
}
