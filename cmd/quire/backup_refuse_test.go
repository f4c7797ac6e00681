package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRestore_Refusals checks on each engine that a restore refuses a damaged or altered archive
// and a store that holds content, leaving the store as it was, and that --force replaces the
// content with the archive's, leaving nothing of what was there.
func TestRestore_Refusals(t *testing.T) {
	for name, storeFlags := range engines {
		t.Run(name, func(t *testing.T) {
			srcArgs := storeFlags(t)
			src := openLive(t, srcArgs)
			token := src.seed(t)
			dir := t.TempDir()
			first := filepath.Join(dir, "first.tar.gz")
			mustQuire(t, append([]string{"backup", "--out", first}, srcArgs...)...)
			firstView := crawl(t, src, token)
			zst := filepath.Join(dir, "first.tar.zst")
			mustQuire(t, append([]string{"backup", "--out", zst}, srcArgs...)...)

			dstArgs := storeFlags(t)
			for _, c := range []struct{ name, archive, want string }{
				{"altered", alter(t, first, dir, "Meeting notes", "Meeting Notes"), "sha256"},
				{"truncated", truncate(t, first, dir), "damaged"},
				{"truncated zstd", truncate(t, zst, dir), "damaged"},
				{"not an archive", write(t, dir, "notes.tar.gz", []byte("hello")), "neither a gzip nor a zstd file"},
			} {
				out, err := runCmd(append([]string{"restore", "--in", c.archive}, dstArgs...)...)
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nothing was restored") {
					t.Errorf("restore of a %s archive: %v, want an error naming %q\n%s", c.name, err, c.want, out)
				}
			}
			dst := openLive(t, dstArgs)
			if empty, err := dst.st.Empty(context.Background()); err != nil || !empty {
				t.Fatalf("the store after refused restores: empty = %v, %v", empty, err)
			}
			dst.close()

			mustQuire(t, append([]string{"restore", "--in", first}, dstArgs...)...)
			_, err := runCmd(append([]string{"restore", "--in", first}, dstArgs...)...)
			if err == nil || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "--force") {
				t.Fatalf("restore onto a store with content: %v, want a refusal naming --force", err)
			}

			// The source changes; the second archive replaces the first one's content.
			notes := results(src.ok(t, "POST", "/v2/search", token, map[string]any{"query": "Meeting notes"}))[0]
			src.ok(t, "DELETE", "/v2/pages/"+notes, token, nil)
			src.ok(t, "POST", "/v2/pages", token, map[string]any{"properties": map[string]any{
				"title": []any{map[string]any{"text": map[string]any{"content": "Written after the first backup"}}}}})
			src.embedAll(t)
			second := filepath.Join(dir, "second.tar.gz")
			mustQuire(t, append([]string{"backup", "--out", second}, srcArgs...)...)
			mustQuire(t, append([]string{"restore", "--in", second, "--force"}, dstArgs...)...)
			dst = openLive(t, dstArgs)
			got := crawl(t, dst, token)
			if diff := cmp.Diff(crawl(t, src, token), got); diff != "" {
				t.Fatalf("after restore --force (-source +restored):\n%s", diff)
			}
			if cmp.Equal(firstView, got) {
				t.Fatal("restore --force left the first archive's content")
			}
		})
	}
}

// alter rewrites archive with old replaced by new in its table entries, keeping the manifest:
// what a tampered or bit-rotted archive that still unpacks looks like.
func alter(t *testing.T, archive, dir, old, new string) string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	tr := tar.NewReader(gz)
	changed := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		if strings.HasPrefix(h.Name, "tables/") && bytes.Contains(b, []byte(old)) {
			b, changed = bytes.ReplaceAll(b, []byte(old), []byte(new)), true
		}
		h.Size = int64(len(b))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	if !changed {
		t.Fatalf("%q is in no table entry", old)
	}
	return write(t, dir, "altered.tar.gz", out.Bytes())
}

// truncate keeps the first half of archive, as an interrupted copy would.
func truncate(t *testing.T, archive, dir string) string {
	t.Helper()
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	return write(t, dir, "truncated.tar.gz", b[:len(b)/2])
}

func write(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
