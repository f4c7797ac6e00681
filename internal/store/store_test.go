package store_test

import (
	"context"
	"io/fs"
	"net/url"
	"os"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

var ctx = context.Background()

// seed makes a workspace with one user and returns both.
func seed(t *testing.T, s *store.Store) (*quire.Workspace, *quire.User) {
	t.Helper()
	w := &quire.Workspace{ID: quire.NewID(), Name: "Acme", CreatedMs: quire.NowMillis()}
	if err := s.CreateWorkspace(ctx, w); err != nil {
		t.Fatal(err)
	}
	u := &quire.User{ID: quire.NewID(), WorkspaceID: w.ID, Name: "Ada", Email: "ada@example.com", CreatedMs: quire.NowMillis()}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	return w, u
}

func TestMigrations_TwinFolders(t *testing.T) {
	names := func(engine string) []string {
		entries, err := fs.ReadDir(os.DirFS("migrations"), engine)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	if a, b := names("sqlite"), names("postgres"); !slices.Equal(a, b) || len(a) == 0 {
		t.Fatalf("migration folders differ: sqlite %v, postgres %v", a, b)
	}
}

func TestStore_ReopenKeepsSecretAndData(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(ctx, store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := seed(t, s)
	secret := s.Secret()
	s.Close()
	s, err = store.Open(ctx, store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !slices.Equal(secret, s.Secret()) || len(secret) != 32 {
		t.Fatalf("secret changed across reopen")
	}
	if _, err := s.Workspace(ctx, w.ID); err != nil {
		t.Fatalf("workspace after reopen: %v", err)
	}
}

func TestStore_Users(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, u := seed(t, s)
		got, err := s.User(ctx, w.ID, u.ID)
		if err != nil || got.Email != u.Email || got.Name != u.Name {
			t.Fatalf("User = %+v, %v", got, err)
		}
		if _, err := s.User(ctx, "other", u.ID); !quire.IsCode(err, quire.CodeNotFound) {
			t.Fatalf("User in another workspace: err = %v, want not_found", err)
		}
		dup := &quire.User{ID: quire.NewID(), WorkspaceID: w.ID, Name: "B", Email: u.Email, CreatedMs: 1}
		if err := s.CreateUser(ctx, dup); !quire.IsCode(err, quire.CodeValidation) {
			t.Fatalf("duplicate email: err = %v, want validation_error", err)
		}
		for i := range 5 {
			nu := &quire.User{ID: quire.NewID(), WorkspaceID: w.ID, Name: "U", Email: quire.NewID() + "@x", CreatedMs: int64(1000 + i)}
			if err := s.CreateUser(ctx, nu); err != nil {
				t.Fatal(err)
			}
		}
		// Walk in pages of 2: every user exactly once, in key order.
		var seen []string
		var after *store.UserKey
		for {
			page, err := s.ListUsers(ctx, w.ID, after, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range page {
				seen = append(seen, p.ID)
			}
			if len(page) < 2 {
				break
			}
			last := page[len(page)-1]
			after = &store.UserKey{CreatedMs: last.CreatedMs, ID: last.ID}
		}
		if len(seen) != 6 || slices.Contains(seen[1:], seen[0]) {
			t.Fatalf("walk saw %d users: %v", len(seen), seen)
		}
	})
}

func TestStore_TokensAndGrants(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, u := seed(t, s)
		parent, child := quire.NewID(), quire.NewID()
		insertNode(t, s, w.ID, parent, "")
		insertNode(t, s, w.ID, child, parent)
		other := quire.NewID()
		insertNode(t, s, w.ID, other, "")

		tok := &quire.Token{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, IntegrationID: quire.NewID(),
			Name: "bot", Scopes: []quire.Scope{quire.PagesRead}, Grants: []string{parent}, CreatedMs: quire.NowMillis()}
		if err := s.CreateToken(ctx, tok, "hash1"); err != nil {
			t.Fatal(err)
		}
		p, err := s.Authenticate(ctx, "hash1")
		if err != nil || p.Token.ID != tok.ID || p.WorkspaceName != "Acme" || !p.Has(quire.PagesRead) || p.Has(quire.PagesWrite) {
			t.Fatalf("Authenticate = %+v, %v", p, err)
		}
		for _, tc := range []struct {
			id   string
			want bool
		}{{parent, true}, {child, true}, {other, false}, {quire.NewID(), false}} {
			got, err := s.Reaches(ctx, w.ID, tok.ID, tc.id)
			if err != nil || got != tc.want {
				t.Errorf("Reaches(%s) = %v, %v; want %v", tc.id, got, err, tc.want)
			}
		}
		if err := s.Grant(ctx, tok.ID, other); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.Reaches(ctx, w.ID, tok.ID, other); !ok {
			t.Errorf("granted node not reached")
		}
		if err := s.Grant(ctx, tok.ID, quire.NewID()); !quire.IsCode(err, quire.CodeNotFound) {
			t.Errorf("grant of a missing node: err = %v, want not_found", err)
		}
		c, err := s.CountWorkspace(ctx, w.ID, tok.ID, false)
		if err != nil || c.Pages != 3 || c.Members != 1 {
			t.Errorf("CountWorkspace (granted) = %+v, %v; want 3 pages, 1 member", c, err)
		}
		if err := s.Revoke(ctx, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Authenticate(ctx, "hash1"); !quire.IsCode(err, quire.CodeNotFound) {
			t.Fatalf("revoked token authenticated: %v", err)
		}
		got, err := s.Token(ctx, tok.ID)
		if err != nil || got.RevokedMs == 0 || len(got.Grants) != 2 {
			t.Fatalf("Token after revoke = %+v, %v", got, err)
		}
		if err := s.Revoke(ctx, quire.NewID()); !quire.IsCode(err, quire.CodeNotFound) {
			t.Fatalf("revoke of a missing token: %v", err)
		}
	})
}

// insertNode writes a bare page row, standing in for the page service of a later issue.
func insertNode(t *testing.T, s *store.Store, ws, id, parent string) {
	t.Helper()
	ptype, pid := "workspace", any(nil)
	if parent != "" {
		ptype, pid = "page_id", parent
	}
	err := s.InTx(ctx, func(tx *store.Tx) error {
		return tx.ExecForTest(ctx, `INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, parent_id, position,
			title, properties, description, created_ms, created_by, edited_ms, edited_by)
			VALUES ($1, $2, 'page', 'page', $3, $4, 'a0', '[]', '{}', '[]', 1, 'u', 1, 'u')`, id, ws, ptype, pid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStore_PostgresPrefetch checks that the store's PostgreSQL connections do not prefetch
// heap pages ahead of a bitmap heap scan unless the database URL asks for it: the prefetch
// looks each page up twice in a cached store (docs/performance.md, "PostgreSQL keyword search,
// ninth pass").
func TestStore_PostgresPrefetch(t *testing.T) {
	u, err := url.Parse(testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"0", "1"} {
		dsn := *u
		if want == "1" {
			q := dsn.Query()
			q.Set("effective_io_concurrency", "1")
			dsn.RawQuery = q.Encode()
		}
		s, err := store.Open(ctx, store.Config{DatabaseURL: dsn.String()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.RowsForTest(ctx, `SHOW effective_io_concurrency`)
		s.Close()
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("SHOW effective_io_concurrency with %q = %v, %v; want %s", dsn.RawQuery, got, err, want)
		}
	}
}

// TestStore_PostgresJIT checks that the store's PostgreSQL connections run without JIT
// compilation unless the database URL asks for it.
func TestStore_PostgresJIT(t *testing.T) {
	u, err := url.Parse(testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"off", "on"} {
		dsn := *u
		if want == "on" {
			q := dsn.Query()
			q.Set("jit", "on")
			dsn.RawQuery = q.Encode()
		}
		s, err := store.Open(ctx, store.Config{DatabaseURL: dsn.String()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.RowsForTest(ctx, `SHOW jit`)
		s.Close()
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("SHOW jit with %q = %v, %v; want %s", dsn.RawQuery, got, err, want)
		}
	}
}
