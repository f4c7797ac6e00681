package backup

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// backupOf writes an archive of s (a fresh store: its secret and migrations' rows) to a file.
func backupOf(t *testing.T, s *store.Store) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "b.tar.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Backup(context.Background(), s, f, Options{FilesDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	return p
}

// rewrite copies the archive at path, letting edit change each entry (nil drops it) and append
// entries after the last.
func rewrite(t *testing.T, path string, edit func(name string, b []byte) []byte, extra map[string][]byte) string {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	put := func(name string, b []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	err := walk(path, func(h *tar.Header, r io.Reader) error {
		b, err := io.ReadAll(r)
		if b = edit(h.Name, b); b != nil {
			put(h.Name, b)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range extra {
		put(name, b)
	}
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), "edited.tar.gz")
	if err := os.WriteFile(p, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// editManifest returns an edit that changes the manifest alone.
func editManifest(fn func(m map[string]any)) func(string, []byte) []byte {
	return func(name string, b []byte) []byte {
		if name != manifestName {
			return b
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		fn(m)
		b, _ = json.Marshal(m)
		return b
	}
}

// TestRestore_RefusesBadArchives: an archive whose entries and manifest disagree, or that was
// made at another schema version, is refused with a message saying what is wrong, and the
// target store is left empty.
func TestRestore_RefusesBadArchives(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		good := backupOf(t, s)
		keep := func(_ string, b []byte) []byte { return b }
		cases := []struct {
			name    string
			archive string
			corrupt bool
			want    string
		}{
			{"entry dropped", rewrite(t, good, func(n string, b []byte) []byte {
				if strings.HasPrefix(n, "tables/settings/") {
					return nil
				}
				return b
			}, nil), true, "entries, the manifest lists"},
			{"entry after the manifest", rewrite(t, good, keep, map[string][]byte{"files/extra": []byte("x")}), true, "follows the manifest"},
			{"rows miscounted", rewrite(t, good, editManifest(func(m map[string]any) {
				m["tables"].([]any)[0].(map[string]any)["rows"] = 7
			}), nil), true, "table settings: 1 rows in its chunks, the manifest says 7"},
			{"not a quire backup", rewrite(t, good, editManifest(func(m map[string]any) { m["format"] = "other" }), nil), true, "not a Quire backup"},
			{"newer format", rewrite(t, good, editManifest(func(m map[string]any) { m["format_version"] = 2 }), nil), true, "format version 2"},
			{"other schema version", rewrite(t, good, editManifest(func(m map[string]any) { m["schema_version"] = 999 }), nil), false,
				"the archive is of schema version 999"},
		}
		for _, c := range cases {
			target := testdb.SQLite(t)
			_, err := Restore(context.Background(), target, c.archive, RestoreOptions{FilesDir: t.TempDir()})
			if err == nil || errors.Is(err, ErrCorrupt) != c.corrupt || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: restore = %v; want an error with %q (corrupt: %v)", c.name, err, c.want, c.corrupt)
			}
			if empty, err := target.Empty(context.Background()); !empty || err != nil {
				t.Errorf("%s: target not left empty: %v", c.name, err)
			}
		}
		if _, err := Restore(context.Background(), testdb.SQLite(t), good, RestoreOptions{FilesDir: t.TempDir()}); err != nil {
			t.Fatalf("the unedited archive: %v", err)
		}
	})
}

// TestValues: each kind is written as the same JSON whatever the engine scanned, and read back
// as the value both engines accept.
func TestValues(t *testing.T) {
	cases := []struct {
		kind    kind
		scanned any
		json    string
		back    any
	}{
		{kText, "日本\"\n<b>", `"日本\"\n<b>"`, "日本\"\n<b>"},
		{kText, []byte("raw"), `"raw"`, "raw"},
		{kText, nil, `null`, nil},
		{kInt, int64(math.MaxInt64), `9223372036854775807`, int64(math.MaxInt64)},
		{kBool, int64(1), `true`, true}, // SQLite's INTEGER
		{kBool, false, `false`, false},  // PostgreSQL's BOOLEAN
		{kFloat, 0.1, `0.1`, 0.1},
		{kFloat, int64(3), `3`, 3.0}, // SQLite may keep a whole REAL as an integer
		{kBytes, []byte{0, 255, 7}, `"AP8H"`, []byte{0, 255, 7}},
		{kBytes, []byte{}, `""`, []byte{}},
	}
	for _, c := range cases {
		b, err := appendValue(nil, c.kind, c.scanned)
		if err != nil || string(b) != c.json {
			t.Errorf("appendValue(%s, %#v) = %s, %v; want %s", c.kind, c.scanned, b, err, c.json)
			continue
		}
		back, err := decodeValue(b, c.kind)
		if err != nil || !cmp.Equal(back, c.back) {
			t.Errorf("decodeValue(%s, %s) = %#v, %v; want %#v", c.kind, b, back, err, c.back)
		}
	}
	for _, bad := range []struct {
		kind kind
		v    any
	}{{kFloat, math.NaN()}, {kInt, "1"}, {kText, int64(1)}} {
		if _, err := appendValue(nil, bad.kind, bad.v); err == nil {
			t.Errorf("appendValue(%s, %#v) accepted", bad.kind, bad.v)
		}
	}
}

// TestBackup_MissingFileBytes: a completed upload whose bytes are gone from the files folder is
// listed as missing, and the rest of the store is still backed up and restores.
func TestBackup_MissingFileBytes(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		err := s.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.ExecForTest(ctx, `INSERT INTO workspaces (id, name, created_ms) VALUES ('ws1', 'Acme', 1)`); err != nil {
				return err
			}
			return tx.ExecForTest(ctx, `INSERT INTO files (id, workspace_id, token_id, parent_id, name, content_type, size, status,
				storage_key, created_ms, expires_ms, completed_ms) VALUES ('file-gone', 'ws1', 't', NULL, 'a.txt', 'text/plain', 3,
				'uploaded', 'file-gone', 1, 2, 2)`)
		})
		if err != nil {
			t.Fatal(err)
		}
		archive := backupOf(t, s)
		m, err := Verify(archive)
		if err != nil {
			t.Fatal(err)
		}
		want := []FileInfo{{ID: "file-gone", Key: "file-gone", Size: 3}}
		if diff := cmp.Diff(want, m.MissingFiles); diff != "" || len(m.Files) != 0 || m.Rows("files") != 1 {
			t.Fatalf("missing files (-want +got):\n%s\nfiles %v, file rows %d", diff, m.Files, m.Rows("files"))
		}
		target := testdb.SQLite(t)
		if _, err := Restore(ctx, target, archive, RestoreOptions{FilesDir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		if empty, err := target.Empty(ctx); empty || err != nil {
			t.Fatalf("restored store empty = %v, %v", empty, err)
		}
	})
}
