package service_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// TestChildrenWithToken: the children page read with the token (AuthenticateNodeChildren) is
// the page Children reads itself, for every page size and cursor; it is taken only for the very
// page it was read for (same size, same cursor) and only for a page the token reaches, and is
// read in the request, never kept. On PostgreSQL the listing rides with the token's read, so
// blocks trashed between the guard's read and the handler are still in it, as they would be had
// the request come a moment earlier; on SQLite (no round trip to save) the handler reads.
func TestChildrenWithToken(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p, secret := callerToken(t, st)
			// ask is a page of children: its cursor ("", "first" or "second": after that page of
			// 10, or another text as it is) and size.
			type ask struct {
				cursor string
				size   int
			}
			cases := []struct {
				name       string
				block      bool // list the page's first block, a toggle, not the page
				read, list ask  // what the guard read, what the handler asks for
				taken      bool
			}{
				{"first page", false, ask{"", 10}, ask{"", 10}, true},
				{"one", false, ask{"", 1}, ask{"", 1}, true},
				{"all", false, ask{"", 100}, ask{"", 100}, true},
				{"after a cursor", false, ask{"first", 10}, ask{"first", 10}, true},
				{"last page", false, ask{"second", 10}, ask{"second", 10}, true},
				{"another size", false, ask{"", 10}, ask{"", 11}, false},
				{"another cursor", false, ask{"first", 10}, ask{"second", 10}, false},
				{"no cursor read", false, ask{"", 10}, ask{"first", 10}, false},
				{"a cursor that does not decode", false, ask{"garbage", 10}, ask{"", 10}, false},
				{"size out of range", false, ask{"", 0}, ask{"", 20}, false},
				{"a block's children", true, ask{"", 10}, ask{"", 10}, false},
			}
			for _, c := range cases {
				page := newPage(t, svc, p)
				toggle := map[string]any{"type": "toggle", "toggle": map[string]any{
					"rich_text": []any{}, "children": paragraphs(25, "inner")}}
				created := appendTo(t, svc, p, page.ID, service.Placement{}, append([]any{toggle}, paragraphs(24, "p")...)...)
				if _, _, err := svc.TrashBlock(ctx, p, created[5].ID); err != nil {
					t.Fatal(err)
				}
				id := page.ID
				if c.block {
					id = created[0].ID
				}
				cursors := map[string]string{"": ""}
				for _, k := range []string{"first", "second"} {
					pg, _, err := svc.Children(ctx, p, id, cursors[map[string]string{"first": "", "second": "first"}[k]], 10)
					if err != nil || pg.NextCursor == "" {
						t.Fatalf("%s: %s page: %q, %v", c.name, k, pg.NextCursor, err)
					}
					cursors[k] = pg.NextCursor
				}
				cursor := func(a ask) string {
					if v, ok := cursors[a.cursor]; ok {
						return v
					}
					return a.cursor
				}
				rctx, rp, err := svc.AuthenticateNodeChildren(ctx, "Bearer "+secret, id, service.AllFields, cursor(c.read), c.read.size)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				want, _, err := svc.Children(ctx, p, id, cursor(c.list), c.list.size)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				// Every block of the page trashed after the guard's read: gone from the
				// handler's own read only.
				for _, b := range want.Items {
					if _, _, err := svc.TrashBlock(ctx, p, b.ID); err != nil {
						t.Fatal(err)
					}
				}
				fresh, _, err := svc.Children(ctx, p, id, cursor(c.list), c.list.size)
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := svc.Children(rctx, rp, id, cursor(c.list), c.list.size)
				if err != nil {
					t.Fatal(err)
				}
				taken := c.taken && e.name == "postgres"
				wantNow := fresh
				if taken {
					wantNow = want
				}
				if diff := cmp.Diff(wantNow, got); diff != "" || cmp.Equal(want, fresh) {
					t.Errorf("%s (listing taken: %v): (-want +got):\n%s", c.name, taken, diff)
				}
			}

			// Out of the token's reach: the page is not found, whatever was listed with the token.
			page, other := newPage(t, svc, p), newPage(t, svc, p)
			appendTo(t, svc, p, page.ID, service.Placement{}, paragraphs(2, "p")...)
			appendTo(t, svc, p, other.ID, service.Placement{}, paragraphs(2, "o")...)
			grantSecret, _, err := svc.CreateToken(ctx, service.TokenSpec{WorkspaceID: p.WorkspaceID(), OwnerID: p.Token.OwnerID,
				Name: "granted", Scopes: quire.AllScopes, Grants: []string{other.ID}})
			if err != nil {
				t.Fatal(err)
			}
			rctx, rp, err := svc.AuthenticateNodeChildren(ctx, "Bearer "+grantSecret, page.ID, service.AllFields, "", 10)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := svc.Children(rctx, rp, page.ID, "", 10); !quire.IsCode(err, quire.CodeNotFound) {
				t.Errorf("a page out of the token's reach: %v, want not_found", err)
			}
			rctx, rp, err = svc.AuthenticateNodeChildren(ctx, "Bearer "+grantSecret, other.ID, service.AllFields, "", 10)
			if err != nil {
				t.Fatal(err)
			}
			if got, _, err := svc.Children(rctx, rp, other.ID, "", 10); err != nil || len(got.Items) != 2 {
				t.Errorf("the granted page: %d children, %v; want 2", len(got.Items), err)
			}
			// A revoked token is refused on the next read, listing or not.
			if _, err := svc.RevokeToken(ctx, rp.Token.ID); err != nil {
				t.Fatal(err)
			}
			if _, _, err := svc.AuthenticateNodeChildren(ctx, "Bearer "+grantSecret, other.ID, service.AllFields, "", 10); !quire.IsCode(err, quire.CodeUnauthorized) {
				t.Errorf("revoked token: %v, want unauthorized", err)
			}
		})
	}
}
