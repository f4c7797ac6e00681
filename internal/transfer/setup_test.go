package transfer_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

var ctx = context.Background()

// workspace makes a service with file storage over st, a workspace and its owner, and the
// principal the command line acts as.
func workspace(t *testing.T, st *store.Store) (*service.Service, *quire.Principal) {
	t.Helper()
	files, err := filestore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return workspaceOn(t, st, files)
}

// workspaceOn is workspace with files kept by backend.
func workspaceOn(t *testing.T, st *store.Store, files filestore.Backend) (*service.Service, *quire.Principal) {
	t.Helper()
	svc := service.New(st, service.Options{Files: files})
	w, err := svc.CreateWorkspace(ctx, "Imports")
	if err != nil {
		t.Fatal(err)
	}
	u, err := svc.CreateUser(ctx, w.ID, "Ada", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	return svc, &quire.Principal{Token: &quire.Token{ID: "test", WorkspaceID: w.ID, OwnerID: u.ID,
		Scopes: quire.AllScopes, WorkspaceScoped: true}}
}

// node is one node of the imported tree, with what the tests look at.
type node struct {
	*quire.Node
	content string // the page's stored blocks as JSON
	kids    []*node
}

// tree reads the workspace back: top-level nodes, their child pages and databases in block
// order, and a database's records.
func tree(t *testing.T, svc *service.Service, p *quire.Principal) []*node {
	t.Helper()
	top, err := svc.TopLevelNodes(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var read func(n *quire.Node) *node
	read = func(n *quire.Node) *node {
		out := &node{Node: n}
		if n.Object == quire.ObjectDatabase {
			err := svc.EachRecord(ctx, p, n.ID, func(r *quire.Node, _ int64) error {
				out.kids = append(out.kids, read(r))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		bs, err := svc.ContentTree(ctx, p, n.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(bs)
		out.content = string(b)
		for _, b := range bs {
			if service.IsTransferMarker(b.Type) {
				c, err := svc.StoredNode(ctx, p, b.ID)
				if err != nil {
					t.Fatal(err)
				}
				out.kids = append(out.kids, read(c))
			}
		}
		return out
	}
	var out []*node
	for _, n := range top {
		out = append(out, read(n))
	}
	return out
}

// titles lists the titles of nodes.
func titles(ns []*node) string {
	var s []string
	for _, n := range ns {
		s = append(s, n.TitlePlain)
	}
	return strings.Join(s, ", ")
}

// find is the node titled title among ns, or fails.
func find(t *testing.T, ns []*node, title string) *node {
	t.Helper()
	for _, n := range ns {
		if n.TitlePlain == title {
			return n
		}
	}
	t.Fatalf("no %q among %s", title, titles(ns))
	return nil
}

// propTypes is a database's property types by name.
func propTypes(t *testing.T, db *node) map[string]string {
	t.Helper()
	schema, err := properties.UnmarshalSchema(db.Properties)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range schema {
		out[p.Name] = p.Type
	}
	return out
}

// mustParent makes a top-level page "Inbox" to import under.
func mustParent(t *testing.T, svc *service.Service, p *quire.Principal) *quire.Node {
	t.Helper()
	n, err := svc.CreatePage(ctx, p, service.NewPage{Parent: service.Parent{Type: quire.ParentWorkspace},
		PageType: quire.PageTypePage, Title: blocks.Plain("Inbox")})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
