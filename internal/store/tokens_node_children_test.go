package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestAuthenticateNodeChildren: the token, the node and its children read together give what
// AuthenticateNode and Children give read apart, from the start and after a key, on both
// engines; the listing comes back (listed) on PostgreSQL only, and only with the node: not for
// an absent node, a node of another workspace or out of the token's reach; a revoked token is
// not_found as for AuthenticateNode; a cancelled context reads nothing.
func TestAuthenticateNodeChildren(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, u := seed(t, s)
		w2, _ := seed(t, s)
		page, other, elsewhere := quire.NewID(), quire.NewID(), quire.NewID()
		insertNode(t, s, w.ID, page, "")
		insertNode(t, s, w.ID, other, "")
		insertNode(t, s, w2.ID, elsewhere, "")
		var bs []*quire.Block
		for i := range 30 {
			b := &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page, ParentID: page, Position: fmt.Sprintf("p%03d", i),
				Type: "paragraph", Version: 1, Content: []byte(fmt.Sprintf(`{"rich_text":[],"n":%d}`, i)), InTrash: i == 3,
				CreatedMs: 1_700_000_000_000 + int64(i), CreatedBy: u.ID, EditedMs: 1_700_000_000_000 + int64(i), EditedBy: u.ID}
			bs = append(bs, b)
		}
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertBlocks(ctx, bs) })
		now := quire.NowMillis()
		scoped := &quire.Token{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, IntegrationID: quire.NewID(), Name: "s",
			Scopes: []quire.Scope{quire.BlocksRead}, WorkspaceScoped: true, CreatedMs: now}
		granted := &quire.Token{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, IntegrationID: quire.NewID(), Name: "g",
			Scopes: []quire.Scope{quire.BlocksRead}, Grants: []string{page}, CreatedMs: now}
		for _, tok := range []*quire.Token{scoped, granted} {
			if err := s.CreateToken(ctx, tok, "hash-"+tok.Name); err != nil {
				t.Fatal(err)
			}
		}
		pg := s.Engine() == store.Postgres
		for _, name := range []string{"s", "g"} {
			for _, after := range []*store.ChildKey{nil, {Position: bs[10].Position, ID: bs[10].ID}} {
				for _, limit := range []int{1, 11, 101} {
					p, n, list, listed, err := s.AuthenticateNodeChildren(ctx, "hash-"+name, page, store.AllFields, after, limit)
					if err != nil || n == nil || listed != pg {
						t.Fatalf("%s after %v limit %d: node %v, listed %v, %v", name, after, limit, n, listed, err)
					}
					wantP, wantN, err := s.AuthenticateNode(ctx, "hash-"+name, page, store.AllFields)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff([]any{wantP, wantN}, []any{p, n}); diff != "" {
						t.Errorf("%s: token and node (-apart +together):\n%s", name, diff)
					}
					if !pg {
						continue
					}
					want, err := s.Children(ctx, page, after, limit)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, list); diff != "" || len(list) == 0 {
						t.Errorf("%s after %v limit %d: children (-apart +together):\n%s", name, after, limit, diff)
					}
				}
			}
		}
		for _, c := range []struct{ hash, id string }{{"hash-s", quire.NewID()}, {"hash-s", elsewhere}, {"hash-g", other}} {
			p, n, list, listed, err := s.AuthenticateNodeChildren(ctx, c.hash, c.id, store.AllFields, nil, 10)
			if err != nil || p == nil || n != nil || listed || list != nil {
				t.Errorf("%s, node %s: %v, %v, %d children, listed %v, %v; want the token alone", c.hash, c.id, p, n, len(list), listed, err)
			}
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if _, _, _, listed, err := s.AuthenticateNodeChildren(cancelled, "hash-s", page, store.AllFields, nil, 10); err == nil || listed {
			t.Errorf("cancelled: listed %v, %v; want an error", listed, err)
		}
		if err := s.Revoke(ctx, scoped.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, _, listed, err := s.AuthenticateNodeChildren(ctx, "hash-s", page, store.AllFields, nil, 10); !quire.IsCode(err, quire.CodeNotFound) || listed {
			t.Errorf("revoked token: listed %v, %v; want not_found", listed, err)
		}
	})
}
