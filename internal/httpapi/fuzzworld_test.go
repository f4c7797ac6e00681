package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// fuzzWorld is a seeded server for the HTTP fuzz and property tests (fuzzserver_test.go). Its
// requests come from the route table: every route has at least one template request that it
// answers 2xx (the conformance table's cases and validBodies, reused), and the generator
// (fuzzgen_test.go) fills path parameters with real ids of every kind from three workspaces,
// query parameters from the served document, and tokens and cursors gathered here.
type fuzzWorld struct {
	e         *env
	routes    []fuzzRoute
	templates []fuzzTemplate
	ids       map[string][]string // path parameter name → real ids of that kind, every workspace
	allIDs    []string            // every id above, for swaps into the wrong place
	tokens    []string            // every token a template uses, plus revoked and foreign ones
	cursors   []string            // real next_cursor values of every listing
	logs      *bytes.Buffer       // the server's error log, shown with a failure
	logMu     sync.Mutex
}

// fuzzRoute is one entry of the route table with what the document says of its parameters.
type fuzzRoute struct {
	key, method, pattern string
	segs                 []string      // pattern split at "/"; "{name}" for a parameter
	query                []*huma.Param // documented query parameters
	enums                map[string][]string
}

// fuzzTemplate is a request the server answers as the conformance table says.
type fuzzTemplate struct {
	route   int // index in fuzzWorld.routes
	method  string
	segs    []string // the path split at "/"
	query   string
	body    []byte
	token   string
	headers []string
}

// newFuzzWorld seeds st through the real server and gathers the templates.
func newFuzzWorld(t testing.TB, st *store.Store) *fuzzWorld {
	t.Helper()
	w := &fuzzWorld{logs: &bytes.Buffer{}, ids: map[string][]string{}}
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: w.logs, mu: &w.logMu}, &slog.HandlerOptions{Level: slog.LevelError}))
	e := newEnv(t, st, envOptions{logger: logger})
	w.e = e
	srv := e.srv.Config.Handler.(*Server)
	w.loadRoutes(srv)

	// The conformance table's fixtures and cases: every documented operation has a 2xx case.
	ctx := context.Background()
	if _, err := e.svc.CreateUser(ctx, e.ws.ID, "Grace Hopper", "grace@example.com"); err != nil {
		t.Fatal(err)
	}
	pagesOnly := e.token([]quire.Scope{quire.PagesRead}, true)
	grantsOnly := e.token([]quire.Scope{quire.UsersRead, quire.PagesRead, quire.PagesWrite}, false, e.mkPage(t, e.full, wsParent, "Granted"))
	unknown := quire.NewID()
	cases := []conformanceCase{
		{method: "GET", path: "/v2/users/me", token: e.full, status: 200},
		{method: "GET", path: "/v2/users/" + e.owner.ID, token: e.full, status: 200},
		{method: "GET", path: "/v2/users?page_size=1", token: e.full, status: 200},
		{method: "GET", path: "/v2/workspace", token: grantsOnly, status: 200},
		{method: "GET", path: "/v2/openapi/meta", status: 200},
		{method: "GET", path: "/v2/openapi.json", status: 200},
	}
	cases = append(cases, contentCases(t, e, grantsOnly, pagesOnly, unknown)...)
	cases = append(cases, searchCases(t, e)...)
	cases = append(cases, viewCases(t, e, pagesOnly, unknown)...)
	cases = append(cases, fileCases(t, e, pagesOnly, unknown)...)
	cases = append(cases, mindMapCases(t, e, pagesOnly, unknown)...)
	cases = append(cases, databaseCases(t, e, unknown)...)
	cases = append(cases, eventCases(t, e, pagesOnly)...) // stops the server's streams: a generated request ends
	cases = append(cases, webhookCases(t, e)...)
	for _, c := range cases {
		method := c.method
		if method == "" {
			method = http.MethodGet
		}
		path, query, _ := strings.Cut(c.path, "?")
		w.addTemplate(t, method, path, query, []byte(c.body), c.token, c.headers)
	}
	w.gatherIDs(t)
	// validBodies (security_test.go) on real ids of this workspace.
	for _, key := range slices.Sorted(maps.Keys(validBodies)) {
		method, pattern, _ := strings.Cut(key, " ")
		body, _ := json.Marshal(validBodies[key])
		w.addTemplate(t, method, w.fill(pattern), "", body, e.full, nil)
	}
	w.checkCoverage(t)

	// Tokens: the templates' own, a revoked one, another workspace's, a lacking one.
	revoked := e.token(quire.AllScopes, true)
	revokeToken(t, e, revoked)
	w.tokens = append(w.tokens, revoked, grantsOnly, pagesOnly, e.token([]quire.Scope{quire.BlocksRead}, true))
	for _, tp := range w.templates {
		if tp.token != "" && !slices.Contains(w.tokens, tp.token) {
			w.tokens = append(w.tokens, tp.token)
		}
	}
	w.gatherCursors(t)
	return w
}

// loadRoutes reads the route table and, from the served document, each route's parameters.
func (w *fuzzWorld) loadRoutes(srv *Server) {
	doc := srv.api.OpenAPI()
	for _, key := range slices.Sorted(maps.Keys(srv.routes)) {
		method, pattern, _ := strings.Cut(key, " ")
		r := fuzzRoute{key: key, method: method, pattern: pattern, segs: strings.Split(pattern, "/"), enums: map[string][]string{}}
		if item := doc.Paths[pattern]; item != nil {
			if op := operationOf(item, method); op != nil {
				for _, p := range op.Parameters {
					switch {
					case p.In == "query":
						r.query = append(r.query, p)
					case p.In == "path" && p.Schema != nil:
						for _, v := range p.Schema.Enum {
							r.enums[p.Name] = append(r.enums[p.Name], v.(string))
						}
					}
				}
			}
		}
		w.routes = append(w.routes, r)
	}
}

func operationOf(item *huma.PathItem, method string) *huma.Operation {
	return map[string]*huma.Operation{"GET": item.Get, "POST": item.Post, "PATCH": item.Patch, "PUT": item.Put, "DELETE": item.Delete}[method]
}

// match finds the route that serves method and path: the one with most literal segments, as
// the ServeMux picks the most specific pattern. It returns -1 when none does.
func (w *fuzzWorld) match(method string, segs []string) int {
	best, bestLit := -1, -1
	for i, r := range w.routes {
		if r.method != method || len(r.segs) != len(segs) {
			continue
		}
		lit := 0
		for j, s := range r.segs {
			if isParam(s) {
				continue
			}
			if s != segs[j] {
				lit = -1
				break
			}
			lit++
		}
		if lit > bestLit {
			best, bestLit = i, lit
		}
	}
	return best
}

func isParam(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") }

func (w *fuzzWorld) addTemplate(t testing.TB, method, path, query string, body []byte, token string, headers []string) {
	t.Helper()
	segs := strings.Split(path, "/")
	ri := w.match(method, segs)
	if ri < 0 {
		t.Fatalf("no route serves the template %s %s", method, path)
	}
	w.templates = append(w.templates, fuzzTemplate{route: ri, method: method, segs: segs, query: query, body: body, token: token, headers: headers})
	for j, s := range w.routes[ri].segs {
		if isParam(s) {
			w.addID(s[1:len(s)-1], segs[j])
		}
	}
}

func (w *fuzzWorld) addID(param, id string) {
	if !slices.Contains(w.ids[param], id) {
		w.ids[param] = append(w.ids[param], id)
	}
	if !slices.Contains(w.allIDs, id) {
		w.allIDs = append(w.allIDs, id)
	}
}

// gatherIDs adds what the templates do not name: blocks inside pages, a record's page, files,
// and a workspace of its own with a page, a block, a database and a person.
func (w *fuzzWorld) gatherIDs(t testing.TB) {
	t.Helper()
	e := w.e
	for _, page := range slices.Clone(w.ids["page_id"]) {
		r := e.do(http.MethodGet, "/v2/blocks/"+page+"/children?page_size=5", e.full, nil)
		for _, b := range objects(r.body["results"]) {
			w.addID("block_id", b["id"].(string))
		}
	}
	for _, tp := range w.templates {
		if _, id, ok := strings.Cut(tp.query, "file_id="); ok {
			w.addID("file_id", id)
		}
	}
	other := *e
	var err error
	ctx := context.Background()
	if other.ws, err = e.svc.CreateWorkspace(ctx, "Elsewhere"); err != nil {
		t.Fatal(err)
	}
	if other.owner, err = e.svc.CreateUser(ctx, other.ws.ID, "Grace", "grace@elsewhere.example"); err != nil {
		t.Fatal(err)
	}
	other.full = other.token(quire.AllScopes, true)
	w.tokens = append(w.tokens, other.full)
	page := other.mkPage(t, other.full, wsParent, "Theirs")
	w.addID("page_id", page)
	w.addID("block_id", other.appendKids(t, page, para("theirs"))[0]["id"].(string))
	w.addID("user_id", other.owner.ID)
	db := other.do(http.MethodPost, "/v2/databases", other.full, map[string]any{"parent": pageParent(page), "title": []any{txt("Theirs")},
		"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}})
	wantOK(t, db, http.StatusOK)
	w.addID("database_id", db.body["id"].(string))

	// Things to delete: the documents leave DELETE out, so the conformance table has no case.
	page = e.mkPage(t, e.full, wsParent, "Disposable")
	block := e.appendKids(t, page, para("disposable"))[0]["id"].(string)
	db = e.do(http.MethodPost, "/v2/databases", e.full, map[string]any{"parent": pageParent(page), "title": []any{txt("Disposable")},
		"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}})
	wantOK(t, db, http.StatusOK)
	dbID := db.body["id"].(string)
	view := e.do(http.MethodPost, "/v2/databases/"+dbID+"/views", e.full, map[string]any{"name": "All", "type": "table"})
	wantOK(t, view, http.StatusOK)
	for _, path := range []string{"/v2/databases/" + dbID + "/views/" + view.body["id"].(string), "/v2/blocks/" + block,
		"/v2/databases/" + dbID, "/v2/pages/" + page} {
		w.addTemplate(t, http.MethodDelete, path, "", nil, e.full, nil)
	}
}

// fill puts a real id of the right kind (or an allowed value) in every parameter of pattern.
func (w *fuzzWorld) fill(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if isParam(s) {
			name := s[1 : len(s)-1]
			if v := pathValues[name]; v != "" {
				segs[i] = v
			} else if ids := w.ids[name]; len(ids) > 0 {
				segs[i] = ids[0]
			}
		}
	}
	return strings.Join(segs, "/")
}

// checkCoverage fails when a route of the table has no template it answers 2xx: a new route
// needs a conformance case (openapi_test.go asks for one as well).
func (w *fuzzWorld) checkCoverage(t testing.TB) {
	t.Helper()
	ok := map[int]bool{}
	for _, tp := range w.templates {
		r := w.e.do(tp.method, strings.Join(tp.segs, "/")+queryPart(tp.query), tp.token, bodyArg(tp.body), tp.headers...)
		if r.status/100 == 2 {
			ok[tp.route] = true
		}
	}
	for i, r := range w.routes {
		if !ok[i] {
			t.Errorf("route %s has no template request answered 2xx: add a conformance case", r.key)
		}
	}
}

func queryPart(q string) string {
	if q == "" {
		return ""
	}
	return "?" + q
}

// gatherCursors asks every listing for its first item and keeps the next_cursor.
func (w *fuzzWorld) gatherCursors(t testing.TB) {
	t.Helper()
	for _, tp := range w.templates {
		path := strings.Join(tp.segs, "/")
		var r *response
		switch {
		case tp.method == http.MethodGet && hasQuery(w.routes[tp.route], "page_size"):
			r = w.e.do(tp.method, path+"?page_size=1", tp.token, nil)
		case tp.method == http.MethodPost && (strings.HasSuffix(path, "/query") || strings.HasPrefix(path, "/v2/search")):
			var body map[string]any
			if json.Unmarshal(tp.body, &body) != nil || body == nil {
				body = map[string]any{}
			}
			body["page_size"] = 1
			r = w.e.do(tp.method, path, tp.token, body)
		default:
			continue
		}
		if c, ok := r.body["next_cursor"].(string); ok && !slices.Contains(w.cursors, c) {
			w.cursors = append(w.cursors, c)
		}
	}
	if len(w.cursors) < 3 {
		t.Fatalf("only %d cursors gathered", len(w.cursors))
	}
}

func hasQuery(r fuzzRoute, name string) bool {
	for _, p := range r.query {
		if p.Name == name {
			return true
		}
	}
	return false
}

// bodyArg is body for env.do: nil (no body at all) when empty.
func bodyArg(body []byte) any {
	if len(body) == 0 {
		return nil
	}
	return body
}
