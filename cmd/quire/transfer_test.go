package main

import (
	"archive/zip"
	"bytes"
	"context"
	"flag"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/httpapi"
	"github.com/quire-dev/quire/internal/service"
)

// seedStore fills the store of args with the demo workspace (nested pages of many block
// types, a database with records and views, a mind map, an uploaded image) and returns the
// workspace id.
func seedStore(t *testing.T, args []string) string {
	t.Helper()
	ctx := context.Background()
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	var sf storeFlags
	sf.add(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	st, err := sf.open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	files, err := filestore.NewLocal(filepath.Join(sf.data, "files"))
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(st, service.Options{Files: files, BaseURL: "http://quire.test"})
	api := httpapi.New(httpapi.Config{Service: svc, BaseURL: "http://quire.test", Logger: slog.New(slog.DiscardHandler)})
	var out bytes.Buffer
	if err := seedDemo(ctx, svc, api, "http://quire.test", &out); err != nil || strings.Contains(out.String(), "--demo:") {
		t.Fatalf("seed: %v\n%s", err, out.String())
	}
	caller, err := svc.Authenticate(ctx, "Bearer "+regexp.MustCompile(`quire_[A-Za-z0-9_-]+`).FindString(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	return caller.WorkspaceID()
}

// readZip reads every file of a zip by its path.
func readZip(t *testing.T, name string) map[string]string {
	t.Helper()
	z, err := zip.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	out := map[string]string{}
	for _, f := range z.File {
		b, err := fs.ReadFile(z, f.Name)
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = string(b)
	}
	return out
}

// readTree reads every file under dir by its slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTransfer_RoundTrip exports the demo workspace, imports it into an empty workspace of
// another store, exports that, and finds the same files byte for byte; a second import of the
// same export writes nothing.
func TestTransfer_RoundTrip(t *testing.T) {
	for name, storeFlags := range engines {
		t.Run(name, func(t *testing.T) {
			src := storeFlags(t)
			ws := seedStore(t, src)
			one := filepath.Join(t.TempDir(), "one")
			sum := runJSON(t, append([]string{"export", "--workspace", ws, "--out", one}, src...)...)
			if sum["pages"].(float64) != 3 || sum["databases"].(float64) != 1 || sum["records"].(float64) != 4 ||
				sum["mind_maps"].(float64) != 1 || sum["files"].(float64) != 1 || len(sum["failed"].([]any)) != 0 {
				t.Fatalf("export summary = %v", sum)
			}

			dst := storeFlags(t)
			ws2 := runJSON(t, append([]string{"workspace", "create", "--name", "Copy"}, dst...)...)["id"].(string)
			imp := runJSON(t, append([]string{"import", "--workspace", ws2, "--from", one}, dst...)...)
			for _, k := range []string{"pages", "databases", "records", "mind_maps", "files"} {
				if imp[k] != sum[k] {
					t.Errorf("import %s = %v, export had %v", k, imp[k], sum[k])
				}
			}
			two := filepath.Join(t.TempDir(), "two.zip")
			runJSON(t, append([]string{"export", "--workspace", ws2, "--out", two}, dst...)...)
			a, b := readTree(t, one), readZip(t, two)
			for p, want := range a {
				if b[p] != want {
					t.Errorf("%s differs after the round trip:\n--- first\n%s\n--- second\n%s", p, want, b[p])
				}
			}
			if len(a) != len(b) {
				t.Errorf("first export has %d files, second %d", len(a), len(b))
			}

			again := runJSON(t, append([]string{"import", "--workspace", ws2, "--from", one}, dst...)...)
			if again["pages"].(float64) != 0 || again["skipped"].(float64) == 0 {
				t.Errorf("a second import of the same export = %v; want everything skipped", again)
			}
		})
	}
}

// TestTransfer_Refusals checks the command lines that do nothing but say why.
func TestTransfer_Refusals(t *testing.T) {
	data := t.TempDir()
	ws := runJSON(t, "workspace", "create", "--name", "W", "--data", data)["id"].(string)
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--out", t.TempDir()}, "--workspace is required"},
		{[]string{"import", "--workspace", ws}, "--from is required"},
		{[]string{"export", "--workspace", ws, "--out", full}, "is not empty"},
		{[]string{"import", "--workspace", ws, "--from", filepath.Join(full, "missing")}, "no such file"},
		{[]string{"export", "--workspace", "01a21d49-f75d-7bef-b875-5167d667e614", "--out", t.TempDir()}, "Could not find workspace"},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append(tc.args, "--data", data), &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("quire %s = %v; want an error saying %q", strings.Join(tc.args, " "), err, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("quire %s printed %q", tc.args[0], out.String())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(full, "keep.txt")); string(b) != "mine" {
		t.Error("an export wrote into a folder that was not empty")
	}
}
