package transfer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
	"github.com/quire-dev/quire/internal/transfer"
)

// markdownFolder writes a plain folder of Markdown: a folder, front matter with a title and
// an icon, relative links between files, a picture, pages whose front matter has fields, a
// file that cannot be read (a link to nothing) with a folder of children, and a CSV that is
// not CSV.
func markdownFolder(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"Plan.md":             "# Steps\n\n1. Read [the ideas](Notes/Ideas.md)\n2. Ship\n",
		"Notes/Ideas.md":      "---\ntitle: \"Big ideas\"\nicon: 💡\n---\n\nSee [the plan](../Plan.md).\n\n![A picture](pic.png)\n",
		"Notes/pic.png":       string(pngBytes(t)),
		"Books/Dune.md":       "---\nauthor: Frank Herbert\nyear: 1965\nread: Yes\n---\n\nSand.\n",
		"Books/Emma.md":       "---\nauthor: Jane Austen\nyear: 1815\nread: No\n---\n\nMatchmaking.\n",
		"Books/Persuasion.md": "---\nauthor: Jane Austen\nyear: 1817\nread: Yes\n---\n",
		"Broken.csv":          "Name,Size\n\"unclosed,3\n",
		"Gone/Child.md":       "Still here.\n",
	}
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere.md"), filepath.Join(dir, "Gone.md")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestImport_MarkdownFolder imports a plain folder: folders become folder pages, front matter
// titles and icons the pages', other front-matter fields the properties of a database of the
// folder's pages, relative links page mentions, a picture an upload; the files that cannot be
// read are reported with their reason and the rest (an unreadable page's children too) is
// imported. A second run writes nothing.
func TestImport_MarkdownFolder(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		svc, p := workspace(t, st)
		parent := mustParent(t, svc, p)
		src, err := transfer.OpenSource(markdownFolder(t))
		if err != nil {
			t.Fatal(err)
		}
		if f := transfer.Detect(src); f != transfer.FormatFolder {
			t.Fatalf("Detect = %s", f)
		}
		sum, err := transfer.Import(ctx, svc, p, src, transfer.Options{Parent: parent.ID})
		if err != nil {
			t.Fatal(err)
		}
		reasons := map[string]string{}
		for _, f := range sum.Failed {
			reasons[f.Path] = f.Reason
		}
		if len(reasons) != 2 || !strings.Contains(reasons["Gone.md"], "no such file") || !strings.Contains(reasons["Broken.csv"], "quote") {
			t.Fatalf("failures = %+v", sum.Failed)
		}
		if sum.Pages != 6 || sum.Databases != 1 || sum.Records != 3 || sum.Files != 1 {
			t.Fatalf("summary = %+v", sum)
		}
		top := tree(t, svc, p)
		under := find(t, top, "Inbox").kids
		if titles(under) != "Books, Gone, Notes, Plan" {
			t.Fatalf("imported under the parent: %s", titles(under))
		}
		books, gone, notes, plan := under[0], under[1], under[2], under[3]
		if gone.PageType != quire.PageTypeFolder || titles(gone.kids) != "Child" {
			t.Errorf("the children of the unreadable Gone.md: %s %s", gone.PageType, titles(gone.kids))
		}
		if books.PageType != quire.PageTypeFolder || notes.PageType != quire.PageTypeFolder {
			t.Fatalf("folders = %s, %s", books.PageType, notes.PageType)
		}
		ideas := find(t, notes.kids, "Big ideas")
		if string(ideas.Icon) != `{"type":"emoji","emoji":"💡"}` {
			t.Errorf("icon = %s", ideas.Icon)
		}
		for _, want := range []string{`"mention":{"type":"page","page":{"id":"` + plan.ID, `"type":"image"`, `"type":"file_upload"`} {
			if !strings.Contains(ideas.content, want) {
				t.Errorf("Big ideas lacks %s: %s", want, ideas.content)
			}
		}
		if !strings.Contains(plan.content, `"mention":{"type":"page","page":{"id":"`+ideas.ID) {
			t.Errorf("Plan does not mention Big ideas: %s", plan.content)
		}
		db := find(t, books.kids, "Books")
		want := map[string]string{"Name": quire.PropTitle, "author": quire.PropSelect, "year": quire.PropNumber, "read": quire.PropCheckbox}
		if got := propTypes(t, db); !equalMaps(got, want) {
			t.Fatalf("Books' types = %v, want %v", got, want)
		}
		if titles(db.kids) != "Dune, Emma, Persuasion" {
			t.Fatalf("records = %s", titles(db.kids))
		}
		dune := rendered(t, svc, db.kids[0].Node)
		if dune["year"]["number"] != 1965.0 || dune["read"]["checkbox"] != true || !strings.Contains(db.kids[0].content, "Sand.") {
			t.Errorf("Dune = %v, %s", dune, db.kids[0].content)
		}

		again, err := transfer.Import(ctx, svc, p, src, transfer.Options{Parent: parent.ID})
		if err != nil || again.Pages+again.Records+again.Databases != 0 || again.Skipped != 10 {
			t.Fatalf("second run = %+v, %v; want everything skipped", again, err)
		}
	})
}
