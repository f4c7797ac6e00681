package service_test

import (
	"context"
	"os"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

var ctx = context.Background()

// engines opens a fresh store per engine, for benchmarks and tests alike.
var engines = []struct {
	name string
	open func(testing.TB) *store.Store
}{
	{"sqlite", func(t testing.TB) *store.Store { return testdb.SQLite(t) }},
	{"postgres", func(t testing.TB) *store.Store { return testdb.Postgres(t) }},
}

// caller makes a workspace, its owner and a full workspace-scoped token, and returns the
// service with the token's principal.
func caller(t testing.TB, st *store.Store) (*service.Service, *quire.Principal) {
	t.Helper()
	svc, p, _ := callerToken(t, st)
	return svc, p
}

// callerToken is caller, also returning the token's secret.
func callerToken(t testing.TB, st *store.Store) (*service.Service, *quire.Principal, string) {
	t.Helper()
	svc := service.New(st, service.Options{BaseURL: "http://quire.test"})
	w, err := svc.CreateWorkspace(ctx, "Bench")
	if err != nil {
		t.Fatal(err)
	}
	u, err := svc.CreateUser(ctx, w.ID, "Ada", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	secret, _, err := svc.CreateToken(ctx, service.TokenSpec{WorkspaceID: w.ID, OwnerID: u.ID, Name: "b",
		Scopes: quire.AllScopes, WorkspaceScoped: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.Authenticate(ctx, "Bearer "+secret)
	if err != nil {
		t.Fatal(err)
	}
	return svc, p, secret
}

// newPage creates an empty top-level page.
func newPage(t testing.TB, svc *service.Service, p *quire.Principal) *quire.Node {
	t.Helper()
	return createPage(t, svc, p, map[string]any{"parent": map[string]any{"workspace": true}})
}

// createPage creates the page a POST /v2/pages body describes.
func createPage(t testing.TB, svc *service.Service, p *quire.Principal, body map[string]any) *quire.Node {
	t.Helper()
	np, _, err := service.DecodeNewPage(body)
	if err != nil {
		t.Fatal(err)
	}
	n, err := svc.CreatePage(ctx, p, np)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// paragraphs is a children array of n paragraphs, as a request body holds it.
func paragraphs(n int, text string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"type": "paragraph", "paragraph": map[string]any{
			"rich_text": []any{map[string]any{"text": map[string]any{"content": text}}}}}
	}
	return out
}

// fill appends n paragraphs (with a nested list every 50th) to page, 100 per request.
func fill(t testing.TB, svc *service.Service, p *quire.Principal, page string, n int) {
	t.Helper()
	for done := 0; done < n; done += 100 {
		batch := paragraphs(min(100, n-done), "The quick brown fox jumps over the lazy dog, again and again.")
		batch[0] = map[string]any{"bulleted_list_item": map[string]any{
			"rich_text": []any{map[string]any{"text": map[string]any{"content": "item"}}},
			"children":  paragraphs(1, "nested"),
		}}
		if _, _, err := svc.AppendChildren(ctx, p, page, batch, service.Placement{}); err != nil {
			t.Fatal(err)
		}
	}
}
