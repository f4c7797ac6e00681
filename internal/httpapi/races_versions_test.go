package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// versioned is a resource that carries a version: PATCH path with If-Match, a body writing
// value s, and how to read the written value back from a GET of the same path.
type versioned struct {
	name, path string
	body       func(s string) any
	read       func(b map[string]any) string
	// adds: each winning PATCH adds an item (a mind-map node) rather than replacing a value;
	// read then answers all of them joined by ",".
	adds bool
}

// versionedResources makes one resource of every versioned kind.
func versionedResources(t *testing.T, e *env) []versioned {
	page := e.mkPage(t, e.full, wsParent, "Contended")
	block := e.appendKids(t, page, para("first"))[0]["id"].(string)
	_, db := e.newDatabase(t, taskSchema())
	dbID := db["id"].(string)
	rec := e.record(t, dbID, map[string]any{"Name": map[string]any{"title": []any{txt("r")}}})["id"].(string)
	view := e.mkView(t, dbID, map[string]any{"name": "All", "type": "table"}).body["id"].(string)
	mm := e.mkMindMap(t, e.full, map[string]any{"parent": wsParent, "title": "Ideas"})
	root := rootOf(mm)["id"].(string)
	title := func(s string) []any { return []any{txt(s)} }
	return []versioned{
		{name: "page", path: "/v2/pages/" + page,
			body: func(s string) any { return map[string]any{"properties": titleOf(s)} },
			read: func(b map[string]any) string { return plainText(dig(b, "properties", "title", "title")) }},
		{name: "block", path: "/v2/blocks/" + block,
			body: func(s string) any { return map[string]any{"paragraph": map[string]any{"rich_text": title(s)}} },
			read: func(b map[string]any) string { return plainText(dig(b, "paragraph", "rich_text")) }},
		{name: "database", path: "/v2/databases/" + dbID,
			body: func(s string) any { return map[string]any{"title": title(s)} },
			read: func(b map[string]any) string { return plainText(b["title"]) }},
		{name: "record", path: "/v2/pages/" + rec,
			body: func(s string) any {
				return map[string]any{"properties": map[string]any{"Name": map[string]any{"title": title(s)}}}
			},
			read: func(b map[string]any) string { return plainText(dig(b, "properties", "Name", "title")) }},
		{name: "view", path: viewPath(dbID, view),
			body: func(s string) any { return map[string]any{"name": s} },
			read: func(b map[string]any) string { s, _ := b["name"].(string); return s }},
		{name: "mind map", path: "/v2/mind-maps/" + mm.body["id"].(string), adds: true,
			body: func(s string) any {
				return map[string]any{"edits": []any{map[string]any{"op": "add", "parent_id": root, "node": map[string]any{"text": s}}}}
			},
			read: func(b map[string]any) string {
				var texts []string
				for _, c := range objects(dig(b, "root", "children")) {
					texts = append(texts, c["text"].(string))
				}
				return strings.Join(texts, ",")
			}},
	}
}

// raceIfMatch: many clients PATCH one resource with the same If-Match at once. Exactly
// one wins; every other one answers 409 conflict with the specification's error body and
// changes nothing; the version moves on once.
func raceIfMatch(t *testing.T, st *store.Store) {
	rounds := raceRounds(2, 40)
	e := newEnv(t, st)
	rc := e.racer()
	for _, res := range versionedResources(t, e) {
		t.Run(res.name, func(t *testing.T) {
			var history []string
			for round := range rounds {
				before := e.do(http.MethodGet, res.path, e.full, nil)
				wantOK(t, before, 200)
				etag := before.header.Get("ETag")
				answers := make([]*response, raceClients)
				var f faults
				race(raceClients, func(i int) {
					tag := etag
					if i%2 == 1 { // the strong form of the same version is accepted too
						tag = strings.TrimPrefix(etag, "W/")
					}
					r, err := rc.send(http.MethodPatch, res.path, res.body(fmt.Sprintf("r%d-c%d", round, i)), "If-Match", tag)
					if f.answered(res.name, r, err, 200, 409) {
						answers[i] = r
					}
				})
				f.check(t)
				winner := -1
				for i, a := range answers {
					if a.status == 200 {
						if winner >= 0 {
							t.Fatalf("round %d: clients %d and %d both won against %s", round, winner, i, etag)
						}
						winner = i
						continue
					}
					a.wantError(t, 409, quire.CodeConflict, "")
					if d := a.body["details"].([]any); len(d) != 0 {
						t.Fatalf("a conflict has details: %s", a.raw)
					}
				}
				if winner < 0 {
					t.Fatalf("round %d: nobody won against %s", round, etag)
				}
				after := e.do(http.MethodGet, res.path, e.full, nil)
				wantOK(t, after, 200)
				want := fmt.Sprintf("r%d-c%d", round, winner)
				if res.adds {
					history = append(history, want)
					want = strings.Join(history, ",")
				}
				if got := res.read(after.body); got != want {
					t.Fatalf("round %d: value %q, want the winner's %q", round, got, want)
				}
				tag := after.header.Get("ETag")
				if tag != answers[winner].header.Get("ETag") || version(t, tag) <= version(t, etag) {
					t.Fatalf("round %d: ETag %s before, %s after, winner answered %s", round, etag, tag, answers[winner].header.Get("ETag"))
				}
			}
		})
	}
}

// version is the counter of a weak ETag W/"n".
func version(t testing.TB, etag string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.Trim(strings.TrimPrefix(etag, "W/"), `"`), 10, 64)
	if err != nil {
		t.Fatalf("ETag %q is not W/\"n\"", etag)
	}
	return n
}
