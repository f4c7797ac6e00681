package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// quire runs one command line in process and returns its error and what it wrote to stderr.
func runCmd(args ...string) (string, error) {
	var errOut bytes.Buffer
	err := run(context.Background(), args, io.Discard, &errOut)
	return errOut.String(), err
}

// mustQuire runs a command line that must succeed.
func mustQuire(t *testing.T, args ...string) string {
	t.Helper()
	out, err := runCmd(args...)
	if err != nil {
		t.Fatalf("quire %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// crawl reads everything a client sees of the workspace: listings, every page, database and
// mind map with their blocks, views and records, keyword and semantic searches. Signed file URLs
// carry an expiry, so their query strings are masked; the bytes are compared separately.
func crawl(t *testing.T, l *live, token string) map[string]any {
	t.Helper()
	got := map[string]any{}
	read := func(method, path string, body any) map[string]any {
		m := l.ok(t, method, path, token, body)
		got[method+" "+path+" "+fmt.Sprint(body)] = m
		return m
	}
	read("GET", "/v2/workspace", nil)
	read("GET", "/v2/users", nil)
	read("GET", "/v2/users/me", nil)
	var ids []string
	for _, section := range []string{"top_level", "recent", "folders", "mind_maps", "trash"} {
		ids = append(ids, results(read("GET", "/v2/workspace/pages/"+section+"?page_size=100", nil))...)
	}
	var blocks func(id string)
	blocks = func(id string) {
		for _, b := range read("GET", "/v2/blocks/"+id+"/children?page_size=100", nil)["results"].([]any) {
			if b := b.(map[string]any); b["has_children"] == true && b["type"] != "child_page" && b["type"] != "child_database" {
				blocks(b["id"].(string))
			}
		}
	}
	seen := map[string]bool{}
	for len(ids) > 0 {
		id := ids[0]
		ids = ids[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		if code, _ := l.call(t, "GET", "/v2/databases/"+id, token, nil); code == 200 {
			read("GET", "/v2/databases/"+id, nil)
			read("GET", "/v2/databases/"+id+"/views", nil)
			ids = append(ids, results(read("POST", "/v2/databases/"+id+"/query", map[string]any{"page_size": 100}))...)
			continue
		}
		page := read("GET", "/v2/pages/"+id, nil)
		read("GET", "/v2/pages/"+id+"/content/markdown", nil)
		if page["page_type"] == "mind_map" {
			read("GET", "/v2/mind-maps/"+id, nil)
		}
		blocks(id)
		for _, b := range got["GET /v2/blocks/"+id+"/children?page_size=100 <nil>"].(map[string]any)["results"].([]any) {
			if b := b.(map[string]any); b["type"] == "child_page" || b["type"] == "child_database" {
				ids = append(ids, b["id"].(string))
			}
		}
	}
	for _, q := range []string{"roadmap", "東京", "Semantic", "Archive"} {
		read("POST", "/v2/search", map[string]any{"query": q})
	}
	for _, q := range []string{"meeting notes about the roadmap", "a plan for the launch"} {
		if len(results(read("POST", "/v2/search/semantic", map[string]any{"query": q}))) == 0 {
			t.Fatalf("semantic search for %q found nothing", q)
		}
	}
	b, _ := json.Marshal(got)
	masked := signedQuery.ReplaceAll(b, []byte("?SIGNED"))
	masked = expiry.ReplaceAll(masked, []byte(`"expiry_time":"X"`))
	var out map[string]any
	if err := json.Unmarshal(masked, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	signedQuery = regexp.MustCompile(`\?[^"]*signature=[^"]*`)
	expiry      = regexp.MustCompile(`"expiry_time":"[^"]*"`)
	fileURL     = regexp.MustCompile(`http://quire\.test/v2/files/[^"]*signature=[^"]*`)
)

// fileBytes downloads every uploaded file the crawl's answers link to.
func fileBytes(t *testing.T, l *live, token string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, id := range results(l.ok(t, "GET", "/v2/workspace/pages/recent?page_size=100", token, nil)) {
		if code, _ := l.call(t, "GET", "/v2/pages/"+id, token, nil); code != 200 {
			continue
		}
		b, _ := json.Marshal(l.ok(t, "GET", "/v2/blocks/"+id+"/children?page_size=100", token, nil))
		for _, u := range fileURL.FindAll(b, -1) {
			out = append(out, l.download(t, strings.ReplaceAll(string(u), `\u0026`, "&")))
		}
	}
	if len(out) == 0 {
		t.Fatal("no uploaded file found")
	}
	return out
}

// TestBackupRestore_RoundTrip backs up a live store of each engine and restores it onto each
// engine; a client then sees the same workspace, searches find the same pages, semantic search
// answers at once from the carried embeddings, and files download with the same bytes.
func TestBackupRestore_RoundTrip(t *testing.T) {
	for from, fromFlags := range engines {
		t.Run(from, func(t *testing.T) {
			srcArgs := fromFlags(t)
			src := openLive(t, srcArgs)
			token := src.seed(t)
			// Each compression once: gzip from SQLite, zstd from PostgreSQL.
			archive := filepath.Join(t.TempDir(), map[string]string{"sqlite": "quire.tar.gz", "postgres": "quire.tar.zst"}[from])
			// Something in trash: booleans must survive the trip between engines.
			folders := results(src.ok(t, "GET", "/v2/workspace/pages/folders", token, nil))
			src.ok(t, "DELETE", "/v2/pages/"+folders[0], token, nil)
			// A stored idempotent answer (a binary column) replays after the trip.
			once := map[string]any{"properties": map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": "Once"}}}}}
			first := src.ok(t, "POST", "/v2/pages", token, once, "Idempotency-Key", "backup-1")
			src.embedAll(t)
			want, wantFiles := crawl(t, src, token), fileBytes(t, src, token)
			t.Logf("crawled %d answers, %d files", len(want), len(wantFiles))
			out := mustQuire(t, append([]string{"backup", "--out", archive}, srcArgs...)...)
			if !strings.Contains(out, "backup: wrote "+archive) || !strings.Contains(out, "files: 1 copied") {
				t.Fatalf("backup's report:\n%s", out)
			}
			for to, toFlags := range engines {
				t.Run(to, func(t *testing.T) {
					dstArgs := toFlags(t)
					out := mustQuire(t, append([]string{"restore", "--in", archive}, dstArgs...)...)
					if !strings.Contains(out, "restore: done") {
						t.Fatalf("restore's report:\n%s", out)
					}
					// SQLite's full-text indexes are filled behind a mark: the restore fills them
					// before it ends, rather than leaving the restored corpus to the next server.
					if to == "sqlite" && !strings.Contains(out, "keyword index: ") {
						t.Fatalf("restore's report does not say it indexed the keyword entries:\n%s", out)
					}
					dst := openLive(t, dstArgs)
					if n, err := dst.st.EmbedQueueLength(context.Background()); err != nil || n != 0 {
						t.Fatalf("embedding queue after restore = %d, %v; want the empty queue carried", n, err)
					}
					if diff := cmp.Diff(want, crawl(t, dst, token)); diff != "" {
						t.Fatalf("the restored store answers differently (-source +restored):\n%s", diff)
					}
					if diff := cmp.Diff(wantFiles, fileBytes(t, dst, token)); diff != "" {
						t.Fatalf("restored file bytes differ")
					}
					if _, again := dst.call(t, "POST", "/v2/pages", token, once, "Idempotency-Key", "backup-1"); again["id"] != first["id"] {
						t.Fatalf("the repeated request made %v; want the replay of %v", again["id"], first["id"])
					}
				})
			}
		})
	}
}
