package httpapi

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/markdown"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestMarkdown_RealWorld: README-like files (the markdown package's fixtures: badges, raw
// HTML logos, <a name> anchors, option tables with | in code, & in prose) go through the API
// as a user would move them: POST /v2/pages with the Markdown, GET its Markdown, PUT that
// back, GET again. The two exports are the same bytes, the tree is the same, and the raw
// HTML is stored as an html code block captioned "Raw HTML" and exported as it was.
func TestMarkdown_RealWorld(t *testing.T) {
	files, err := filepath.Glob("../markdown/testdata/readmes/*.md")
	if err != nil || len(files) < 4 {
		t.Fatalf("fixtures: %v %v", files, err)
	}
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(f)
			page := e.mkPage(t, e.full, wsParent, name, map[string]any{"markdown": string(src)})
			first := e.exportMD(t, page)
			tree := e.treeShape(t, page)
			wantOK(t, e.do(http.MethodPut, "/v2/pages/"+page+"/content/markdown", e.full, map[string]any{"markdown": first}), 200)
			if diff := cmp.Diff(first, e.exportMD(t, page)); diff != "" {
				t.Fatalf("%s: export → PUT → export changed the Markdown (-first +second):\n%s", name, diff)
			}
			if diff := cmp.Diff(tree, e.treeShape(t, page)); diff != "" {
				t.Fatalf("%s: the tree changed (-before +after):\n%s", name, diff)
			}
			for _, bad := range []string{`\&`, "&#32;", `\<`} {
				if strings.Contains(first, bad) {
					t.Errorf("%s: the export holds %q", name, bad)
				}
			}
			if name == "framework.md" {
				e.checkFramework(t, page, first)
			}
		}
	})
}

// checkFramework checks how framework.md's logo and badges are stored and exported.
func (e *env) checkFramework(t *testing.T, page, md string) {
	t.Helper()
	kids := e.kids(t, page)
	logo := kids[0]["code"].(map[string]any)
	html := plainText(logo["rich_text"])
	if logo["language"] != "html" || !strings.Contains(html, "\t<picture>\n") {
		t.Fatalf("the logo's raw HTML is stored as %v", kids[0])
	}
	if c := plainText(logo["caption"]); c != markdown.RawHTMLCaption {
		t.Fatalf("raw HTML caption %q", c)
	}
	if !strings.HasPrefix(md, html+"\n\n") {
		t.Fatalf("the export does not start with the logo's HTML:\n%s", md)
	}
	badge := kids[1]
	if badge["type"] != "image" {
		t.Fatalf("the first badge is %v", badge)
	}
	caption := badge["image"].(map[string]any)["caption"].([]any)[0].(map[string]any)
	if caption["plain_text"] != "Ridge Powered" || caption["href"] != "https://ridge.example.com/" {
		t.Fatalf("badge caption %v", caption)
	}
	if !strings.Contains(md, "\n[![Ridge Powered](https://img.example.com/badge/Powered%20By-RIDGE-f40273)](https://ridge.example.com/)\n") {
		t.Fatalf("the badge is not exported as a linked image:\n%s", md)
	}
}
