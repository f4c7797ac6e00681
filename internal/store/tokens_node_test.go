package store_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestAuthenticateNode_PageFields: the page GET's joined read (store.PageFields) gives the
// token's id, workspace, owner, scopes and scope flag and the page's fields exactly as the whole
// read (store.AllFields) gives them, with the fields it leaves out zero; for a granted token
// beneath its grant and a workspace-scoped one; and neither finds a node out of reach, another
// workspace's node, or anything for a revoked token.
func TestAuthenticateNode_PageFields(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, u := seed(t, s)
		w2, _ := seed(t, s)
		top, page, other, elsewhere := quire.NewID(), quire.NewID(), quire.NewID(), quire.NewID()
		insertNode(t, s, w.ID, top, "")
		now := quire.NowMillis()
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.InsertNode(ctx, &quire.Node{ID: page, WorkspaceID: w.ID, Object: quire.ObjectPage, PageType: "page",
				ParentType: quire.ParentPage, ParentID: top, Position: "a0", Title: []byte(`[{"type":"text"}]`), TitlePlain: "T",
				Description: []byte(`[]`), Properties: []byte(`{}`), Icon: []byte(`{"type":"emoji","emoji":"x"}`), Cover: []byte(`{"type":"external"}`),
				Version: 7, CreatedMs: now, CreatedBy: u.ID, EditedMs: now + 1, EditedBy: u.ID})
		}); err != nil {
			t.Fatal(err)
		}
		insertNode(t, s, w.ID, other, "")
		insertNode(t, s, w2.ID, elsewhere, "")
		granted := &quire.Token{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, IntegrationID: quire.NewID(), Name: "g",
			Scopes: []quire.Scope{quire.PagesRead, quire.BlocksRead}, Grants: []string{top}, CreatedMs: now}
		scoped := &quire.Token{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, IntegrationID: quire.NewID(), Name: "s",
			Scopes: []quire.Scope{quire.PagesRead}, WorkspaceScoped: true, CreatedMs: now}
		for _, tok := range []*quire.Token{granted, scoped} {
			if err := s.CreateToken(ctx, tok, "hash-"+tok.Name); err != nil {
				t.Fatal(err)
			}
		}
		for _, tok := range []*quire.Token{granted, scoped} {
			all, whole, err := s.AuthenticateNode(ctx, "hash-"+tok.Name, page, store.AllFields)
			if err != nil || whole == nil {
				t.Fatalf("%s: AllFields = %v, %v", tok.Name, whole, err)
			}
			p, n, err := s.AuthenticateNode(ctx, "hash-"+tok.Name, page, store.PageFields)
			if err != nil || n == nil {
				t.Fatalf("%s: PageFields = %v, %v", tok.Name, n, err)
			}
			wantTok := &quire.Token{ID: all.Token.ID, WorkspaceID: all.Token.WorkspaceID, OwnerID: all.Token.OwnerID,
				Scopes: all.Token.Scopes, WorkspaceScoped: all.Token.WorkspaceScoped}
			if diff := cmp.Diff(wantTok, p.Token); diff != "" || p.WorkspaceName != "" || len(p.Token.Scopes) == 0 {
				t.Errorf("%s: token (-want +got):\n%s", tok.Name, diff)
			}
			want := *whole
			want.Position, want.TitlePlain, want.Description, want.IsInline, want.TrashedUnder = "", "", nil, false, false
			if diff := cmp.Diff(&want, n); diff != "" || whole.Position == "" || whole.TitlePlain == "" {
				t.Errorf("%s: node (-want +got):\n%s", tok.Name, diff)
			}
			for _, id := range []string{elsewhere, quire.NewID()} {
				if p, n, err := s.AuthenticateNode(ctx, "hash-"+tok.Name, id, store.PageFields); err != nil || n != nil || p.Token.ID != tok.ID {
					t.Errorf("%s: node %s found: %v, %v, %v", tok.Name, id, p, n, err)
				}
			}
		}
		if _, n, err := s.AuthenticateNode(ctx, "hash-g", other, store.PageFields); err != nil || n != nil {
			t.Errorf("out of the grant's reach: %v, %v", n, err)
		}
		if err := s.Revoke(ctx, scoped.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.AuthenticateNode(ctx, "hash-s", page, store.PageFields); !quire.IsCode(err, quire.CodeNotFound) {
			t.Errorf("revoked token: %v, want not_found", err)
		}
	})
}

// TestAuthenticateNode_ColumnLists: AuthenticateNode reads the columns its NodeFields lists and
// no others (the node's id is the one asked for, its workspace the token's), and a column it does
// not know is an error, not a statement.
func TestAuthenticateNode_ColumnLists(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, u := seed(t, s)
		page := quire.NewID()
		insertNode(t, s, w.ID, page, "")
		tok := &quire.Token{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, IntegrationID: quire.NewID(), Name: "s",
			Scopes: []quire.Scope{quire.PagesRead}, WorkspaceScoped: true, CreatedMs: quire.NowMillis()}
		if err := s.CreateToken(ctx, tok, "hash-s"); err != nil {
			t.Fatal(err)
		}
		p, n, err := s.AuthenticateNode(ctx, "hash-s", page, store.NodeFields{Token: "t.id, t.workspace_id, t.scopes, w.name", Node: "title, in_trash"})
		if err != nil || n == nil {
			t.Fatalf("AuthenticateNode = %v, %v", n, err)
		}
		wantTok := &quire.Token{ID: tok.ID, WorkspaceID: w.ID, Scopes: tok.Scopes}
		if diff := cmp.Diff(wantTok, p.Token); diff != "" || p.WorkspaceName != "Acme" {
			t.Errorf("token (-want +got):\n%s (workspace %q)", diff, p.WorkspaceName)
		}
		if diff := cmp.Diff(&quire.Node{ID: page, WorkspaceID: w.ID, Title: []byte("[]")}, n); diff != "" {
			t.Errorf("node (-want +got):\n%s", diff)
		}
		if _, _, err := s.AuthenticateNode(ctx, "hash-s", page, store.NodeFields{Node: "title, secret"}); err == nil {
			t.Error("an unknown column gave no error")
		}
	})
}
