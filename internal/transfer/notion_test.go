package transfer_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
	"github.com/quire-dev/quire/internal/transfer"
)

// pngBytes is a small picture for attachments.
func pngBytes(t *testing.T) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// notionZip writes a Notion "Markdown & CSV" export as Notion lays it out: "Title <32 hex>.md"
// per page with its sub-pages and attachments in a folder of the same name, a database as
// "Title <id>.csv" (and "_all.csv") with its rows as pages in "Title <id>/", links between
// files percent-encoded, each page starting with "# Title" and a row with its values.
func notionZip(t *testing.T) string {
	const (
		projects = "Projects 0c1f2e3d4c5b6a798877665544332211"
		roadmap  = "Roadmap 1a2b3c4d5e6f708192a3b4c5d6e7f809"
		tasks    = "Tasks 2b3c4d5e6f708192a3b4c5d6e7f8091a"
		write    = "Write the spec 3c4d5e6f708192a3b4c5d6e7f8091a2b"
	)
	esc := func(s string) string { return strings.ReplaceAll(s, " ", "%20") }
	csvText := "Name,Points,Status,Due,Done,Notes\n" +
		"Write the spec,3,Done,\"November 1, 2026\",Yes,first draft\n" +
		"Ship it,5,Doing,\"December 15, 2026\",No,\"needs review, then go\"\n" +
		"Test it,8,Done,2026-12-20,Yes,\n"
	files := map[string][]byte{
		projects + ".md": []byte("# Projects\n\nSee the [Roadmap](" + esc(projects+"/"+roadmap+".md") + ") and the [tasks](" +
			esc(projects+"/"+tasks+".csv") + ").\n\n![diagram.png](" + esc(projects+"/diagram.png") + ")\n"),
		projects + "/" + roadmap + ".md":             []byte("# Roadmap\n\n- Q1: search\n- Q2: files\n"),
		projects + "/diagram.png":                    pngBytes(t),
		projects + "/spec.pdf":                       []byte("%PDF-1.4 not really"),
		projects + "/" + tasks + ".csv":              []byte(csvText),
		projects + "/" + tasks + "_all.csv":          []byte(csvText),
		projects + "/" + tasks + "/" + write + ".md": []byte("# Write the spec\n\nPoints: 3\nStatus: Done\n\nThe spec's first draft.\n"),
	}
	name := filepath.Join(t.TempDir(), "Export-6a1b.zip")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	for p, b := range files {
		w, err := z.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(b)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return name
}

// TestImport_Notion imports a Notion export zip: pages, a nested page, a database whose
// property types are inferred from its CSV, a row's page content, an image linked from a page
// and an attachment no page links to.
func TestImport_Notion(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		svc, p := workspace(t, st)
		src, err := transfer.OpenSource(notionZip(t))
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		if f := transfer.Detect(src); f != transfer.FormatNotion {
			t.Fatalf("Detect = %s", f)
		}
		sum, err := transfer.Import(ctx, svc, p, src, transfer.Options{})
		if err != nil || len(sum.Failed) != 0 {
			t.Fatalf("Import = %+v, %v", sum, err)
		}
		if sum.Pages != 2 || sum.Databases != 1 || sum.Records != 3 || sum.Files != 2 {
			t.Fatalf("summary = %+v", sum)
		}
		top := tree(t, svc, p)
		projects := find(t, top, "Projects")
		if titles(projects.kids) != "Roadmap, Tasks" {
			t.Fatalf("children of Projects = %s", titles(projects.kids))
		}
		roadmap, tasks := projects.kids[0], projects.kids[1]
		// The links became mentions of the pages; the picture and the unlinked PDF uploads.
		for _, want := range []string{`"mention":{"type":"page","page":{"id":"` + roadmap.ID,
			`"mention":{"type":"database","database":{"id":"` + tasks.ID, `"type":"image"`, `"type":"file"`, `"name":"spec.pdf"`} {
			if !strings.Contains(projects.content, want) {
				t.Errorf("Projects' content lacks %s:\n%s", want, projects.content)
			}
		}
		if strings.Contains(projects.content, "# Projects") || !strings.Contains(roadmap.content, "Q2: files") {
			t.Errorf("page bodies: %s / %s", projects.content, roadmap.content)
		}
		want := map[string]string{"Name": quire.PropTitle, "Points": quire.PropNumber, "Status": quire.PropSelect,
			"Due": quire.PropDate, "Done": quire.PropCheckbox, "Notes": quire.PropRichText}
		if got := propTypes(t, tasks); !equalMaps(got, want) {
			t.Fatalf("inferred types = %v, want %v", got, want)
		}
		if titles(tasks.kids) != "Write the spec, Ship it, Test it" {
			t.Fatalf("records = %s", titles(tasks.kids))
		}
		rec := tasks.kids[0]
		if !strings.Contains(rec.content, "first draft") || strings.Contains(rec.content, "Points: 3") {
			t.Errorf("the row's page content = %s", rec.content)
		}
		// Written through the store's inserts, the import is searchable at once.
		hits, err := svc.Search(ctx, p, service.SearchRequest{Query: "draft", PageSize: 10})
		if err != nil || len(hits.Items) != 1 || hits.Items[0].Node.ID != rec.ID {
			t.Errorf("search for a word of the row's page = %+v, %v", hits.Items, err)
		}
		vals := rendered(t, svc, rec.Node)
		if vals["Points"]["number"] != 3.0 || vals["Status"]["select"].(map[string]any)["name"] != "Done" ||
			vals["Due"]["date"].(map[string]any)["start"] != "2026-11-01" || vals["Done"]["checkbox"] != true {
			t.Errorf("values of the first row = %v", vals)
		}
	})
}

// rendered is a record's properties in the API's read shape, by name.
func rendered(t *testing.T, svc *service.Service, n *quire.Node) map[string]map[string]any {
	t.Helper()
	raw, err := svc.RenderedProperties(ctx, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
