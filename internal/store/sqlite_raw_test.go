package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestRawScan_AsDatabaseSQL: SQLite's raw reads scan every kind of stored value (text, empty
// text, blob, empty blob, integer, NULL) into each destination the store's reads use exactly as
// database/sql's Scan does over the driver, the same value or an error alike; and a statement
// whose parameters come in another order than $1, $2 binds each to its own argument.
func TestRawScan_AsDatabaseSQL(t *testing.T) {
	s := testdb.SQLite(t)
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.Exec(ctx, `CREATE TABLE scan_probe (k TEXT PRIMARY KEY, v ANY)`); err != nil {
			return err
		}
		return tx.Exec(ctx, `INSERT INTO scan_probe (k, v) VALUES ('text', 'héllo'), ('empty', ''), ('blob', x'00ff41'),
			('emptyblob', x''), ('zero', 0), ('one', 1), ('big', 1764000000123), ('neg', -1), ('null', NULL), ('digits', '42')`)
	})
	dests := map[string]func() any{
		"string": func() any { return new(string) }, "nullstring": func() any { return new(sql.NullString) },
		"bytes": func() any { return new([]byte) }, "int64": func() any { return new(int64) }, "bool": func() any { return new(bool) },
	}
	const q = `SELECT v, k FROM scan_probe WHERE k = $2 AND $1 = 'x'` // $2 comes first
	for _, k := range []string{"text", "empty", "blob", "emptyblob", "zero", "one", "big", "neg", "null", "digits"} {
		for name, dest := range dests {
			raw, sqlv := dest(), dest()
			var rawKey, sqlKey string
			ok, rawErr := s.RawScanForTest(ctx, q, []string{"x", k}, raw, &rawKey)
			if !ok {
				t.Fatal("no raw reads on SQLite")
			}
			sqlErr := s.ScanForTest(ctx, q, []any{"x", k}, sqlv, &sqlKey)
			if (rawErr != nil) != (sqlErr != nil) {
				t.Errorf("%s into %s: raw error %v, database/sql error %v", k, name, rawErr, sqlErr)
				continue
			}
			if rawErr != nil {
				continue
			}
			if diff := cmp.Diff(sqlv, raw); diff != "" || rawKey != k {
				t.Errorf("%s into %s (-database/sql +raw):\n%s (key %q)", k, name, diff, rawKey)
			}
			if b, ok := raw.(*[]byte); ok && (*b == nil) != (*sqlv.(*[]byte) == nil) {
				t.Errorf("%s into bytes: raw nil %v, database/sql nil %v", k, *b == nil, *sqlv.(*[]byte) == nil)
			}
		}
	}
	if _, err := s.RawScanForTest(ctx, q, []string{"x", "absent"}, new(string), new(string)); err != sql.ErrNoRows {
		t.Errorf("no row: %v, want sql.ErrNoRows", err)
	}
	if _, err := s.RawScanForTest(ctx, `SELECT nope FROM scan_probe`, nil, new(string)); err == nil {
		t.Error("a statement SQLite cannot prepare gave no error")
	}
	if _, err := s.RawScanForTest(ctx, q, []string{"x"}, new(string), new(string)); err == nil {
		t.Error("a missing argument gave no error")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.RawScanForTest(cancelled, q, []string{"x", "text"}, new(string), new(string)); err != context.Canceled {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestRawReads_NextReadSeesOtherServer: two stores on one database, as two servers; reads
// through A from many goroutines at once (so that every pooled connection of A has read, and
// would hold a stale snapshot if any kept its read transaction open), then a write through B:
// every read through A after it sees it — a block appended, a block trashed, a grant withdrawn,
// a token revoked. Run with -race, it also checks the pool hands a connection to one goroutine
// at a time.
func TestRawReads_NextReadSeesOtherServer(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			cfg := store.Config{Dir: t.TempDir()}
			if engine == "postgres" {
				cfg = store.Config{DatabaseURL: testdb.PostgresURL(t)}
			}
			a, b := openStore(t, cfg), openStore(t, cfg)
			w, u := seed(t, b)
			top, page := quire.NewID(), quire.NewID()
			insertNode(t, b, w.ID, top, "")
			insertNode(t, b, w.ID, page, top)
			tok := &quire.Token{ID: quire.NewID(), WorkspaceID: w.ID, OwnerID: u.ID, IntegrationID: quire.NewID(), Name: "g",
				Scopes: []quire.Scope{quire.PagesRead}, Grants: []string{top}, CreatedMs: quire.NowMillis()}
			if err := b.CreateToken(ctx, tok, "hash-g"); err != nil {
				t.Fatal(err)
			}
			addBlock := func(id, pos string) {
				mustTx(t, b, func(tx *store.Tx) error {
					return tx.Exec(ctx, `INSERT INTO blocks (id, workspace_id, page_id, parent_id, position, type, content, in_trash,
						created_ms, created_by, edited_ms, edited_by) VALUES ($1, $2, $3, $3, $4, 'paragraph', '{"rich_text":[]}', FALSE, 5, $5, 5, $5)`,
						id, w.ID, page, pos, u.ID)
				})
			}
			addBlock("b1", "a")
			// reads checks, from 16 goroutines at once, that A sees want children of page and
			// that the token reaches the page (or not).
			reads := func(step string, want []string, reaches bool) {
				t.Helper()
				var wg sync.WaitGroup
				errs := make(chan error, 16)
				for range 16 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs <- readOnce(a, page, want, reaches)
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					if err != nil {
						t.Fatalf("%s: %v", step, err)
					}
				}
			}
			reads("start", []string{"b1"}, true)
			addBlock("b2", "b")
			reads("after an append through B", []string{"b1", "b2"}, true)
			mustTx(t, b, func(tx *store.Tx) error { return tx.Exec(ctx, `UPDATE blocks SET in_trash = TRUE WHERE id = 'b1'`) })
			reads("after a trash through B", []string{"b2"}, true)
			mustTx(t, b, func(tx *store.Tx) error { return tx.Exec(ctx, `DELETE FROM grants WHERE token_id = $1`, tok.ID) })
			reads("after the grant is withdrawn through B", []string{"b2"}, false)
			if err := b.Revoke(ctx, tok.ID); err != nil {
				t.Fatal(err)
			}
			if _, _, err := a.AuthenticateNode(ctx, "hash-g", page, store.PageFields); !quire.IsCode(err, quire.CodeNotFound) {
				t.Fatalf("revoked through B, A's next read: %v, want not_found", err)
			}
		})
	}
}

// TestRawReads_LookupsMapNothing: on SQLite the key lookups every request makes (the token, the
// token joined with a node) run on connections that do not map the file, so the read after
// another connection's commit re-reads its few pages by pread instead of unmapping and mapping
// the whole file again (lookupMmapSize), with a page cache that holds a page GET row's pages
// (lookupCacheKiB); the children listings keep the map. The reads'
// answers after writes through another server are TestRawReads_NextReadSeesOtherServer's.
// PostgreSQL has neither pool.
func TestRawReads_LookupsMapNothing(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		lookups, listings, cache, ok, err := s.MmapSizesForTest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := s.Engine() == store.SQLite; ok != want {
			t.Fatalf("raw read pools: %v, want %v", ok, want)
		}
		if ok && (lookups != 0 || listings < 1<<30 || cache != -8192) {
			t.Fatalf("mmap_size: lookups %d, listings %d; want 0 and the store's map (2 GB); lookups' cache_size %d, want -8192 (8 MiB)",
				lookups, listings, cache)
		}
	})
}

func readOnce(a *store.Store, page string, want []string, reaches bool) error {
	kids, err := a.Children(ctx, page, nil, 100)
	if err != nil {
		return err
	}
	var got []string
	for _, k := range kids {
		got = append(got, k.ID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("children (-want +got):\n%s", diff)
	}
	_, n, err := a.AuthenticateNode(ctx, "hash-g", page, store.PageFields)
	if err != nil {
		return err
	}
	if (n != nil) != reaches {
		return fmt.Errorf("token reaches the page: %v, want %v", n != nil, reaches)
	}
	return nil
}

func openStore(t *testing.T, cfg store.Config) *store.Store {
	t.Helper()
	s, err := store.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestRawReads_EmptyArgumentIsText: an empty argument binds the empty text, as database/sql binds
// it, never NULL — also on a connection whose buffer nothing has grown yet (SQLite reads a text
// at a null pointer as NULL).
func TestRawReads_EmptyArgumentIsText(t *testing.T) {
	s := testdb.SQLite(t)
	for _, args := range [][]string{{""}, {"", ""}} {
		var isNull bool
		if _, err := s.RawScanForTest(ctx, `SELECT $1 IS NULL`, args, &isNull); err != nil {
			t.Fatal(err)
		}
		if isNull {
			t.Errorf("args %q: $1 bound as NULL, want the empty text", args)
		}
	}
}
