package transfer_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// create sends one POST body (a page, a record or a database) through the service's decoders.
func create(t *testing.T, svc *service.Service, p *quire.Principal, body string) *quire.Node {
	t.Helper()
	if strings.Contains(body, `"schema":`) {
		in, err := service.DecodeNewDatabase([]byte(strings.Replace(body, `"schema":`, `"properties":`, 1)))
		if err != nil {
			t.Fatal(err)
		}
		n, err := svc.CreateDatabase(ctx, p, in)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	in, md, err := service.DecodeNewPage(m)
	if err == nil && md != "" {
		in.Children, err = service.ParseMarkdown(md)
	}
	if err != nil {
		t.Fatal(err)
	}
	n, err := svc.CreatePage(ctx, p, in)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// seed writes a page with six children of some content, a database of three records and a
// database whose record relates to two of them.
func seed(t *testing.T, svc *service.Service, p *quire.Principal) {
	home := create(t, svc, p, `{"parent": {"workspace": true}, "properties": {"title": [{"text": {"content": "Home"}}]},
		"markdown": "# Hello\n\nSome *text*.\n\n- a\n  - nested\n- b\n"}`)
	for i := range 6 {
		create(t, svc, p, fmt.Sprintf(`{"parent": {"page_id": %q}, "properties": {"title": [{"text": {"content": "Child %d"}}]},
			"markdown": "Paragraph %d\n\n> a quote\n\n1. one\n2. two\n"}`, home.ID, i, i))
	}
	db := create(t, svc, p, `{"parent": {"page_id": "`+home.ID+`"}, "title": [{"text": {"content": "Tasks"}}],
		"schema": {"Name": {"title": {}}, "Points": {"number": {}}}}`)
	var tasks []string
	for i := range 3 {
		tasks = append(tasks, create(t, svc, p, fmt.Sprintf(`{"parent": {"database_id": %q}, "properties": {"Name": {"title": [{"text": {"content": "Task %d"}}]},
			"Points": {"number": %d}}, "markdown": "Do it."}`, db.ID, i, i)).ID)
	}
	// A dual relation: its values and the synced side are restored as they were.
	people := create(t, svc, p, `{"parent": {"page_id": "`+home.ID+`"}, "title": [{"text": {"content": "People"}}],
		"schema": {"Name": {"title": {}}, "Owns": {"relation": {"database_id": "`+db.ID+`"}}}}`)
	create(t, svc, p, fmt.Sprintf(`{"parent": {"database_id": %q}, "properties": {"Name": {"title": [{"text": {"content": "Ada"}}]},
		"Owns": {"relation": [{"id": %q}, {"id": %q}]}}}`, people.ID, tasks[0], tasks[2]))
}

// cancelAfter cancels an import once its progress has written n lines.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(b []byte) (int, error) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return len(b), nil
}

// TestImport_Interrupted cancels an import of an export midway: every page that is there is
// whole (its blocks all there), and running the import again skips those and finishes, after
// which an export is the same bytes as the first.
func TestImport_Interrupted(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		svc, p := workspace(t, st)
		seed(t, svc, p)
		first := filepath.Join(t.TempDir(), "first")
		export(t, svc, p, first)

		other := testdb.SQLite(t)
		if st.Engine() == store.Postgres {
			other = testdb.Postgres(t)
		}
		svc2, p2 := workspace(t, other)
		src, err := transfer.OpenSource(first)
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		prog := transfer.NewProgress(&cancelAfter{n: 4, cancel: cancel}, false, "import")
		sum, err := transfer.Import(cctx, svc2, p2, src, transfer.Options{Progress: prog})
		if err != context.Canceled {
			t.Fatalf("Import = %+v, %v; want it cancelled", sum, err)
		}
		done := len(tree(t, svc2, p2))
		if sum.Pages == 0 || sum.Pages >= 7 || done != 1 {
			t.Fatalf("after the cancel: %+v, %d top-level", sum, done)
		}
		var whole func(ns []*node)
		whole = func(ns []*node) {
			for _, n := range ns {
				if n.Object == quire.ObjectPage {
					wantBlocks(t, first, n)
				}
				whole(n.kids)
			}
		}
		whole(tree(t, svc2, p2))

		again, err := transfer.Import(ctx, svc2, p2, src, transfer.Options{})
		if err != nil || again.Skipped != sum.Pages+sum.Databases+sum.Records || len(again.Failed) != 0 {
			t.Fatalf("re-run = %+v, %v (first run %+v)", again, err, sum)
		}
		people := find(t, find(t, tree(t, svc2, p2), "Home").kids, "People")
		if owns := rendered(t, svc2, people.kids[0].Node)["Owns"]["relation"]; len(owns.([]any)) != 2 {
			t.Errorf("Ada owns %v after the import, want two tasks", owns)
		}
		second := filepath.Join(t.TempDir(), "second")
		export(t, svc2, p2, second)
		a, b := files(t, first), files(t, second)
		if len(a) != len(b) {
			t.Fatalf("exports have %d and %d files", len(a), len(b))
		}
		for name, want := range a {
			if b[name] != want {
				t.Errorf("%s differs after the resumed import", name)
			}
		}
	})
}

// wantBlocks checks that page n has every content block the export has for it.
func wantBlocks(t *testing.T, dir string, n *node) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "content", n.ID+".json"))
	if os.IsNotExist(err) {
		raw, err = []byte("[]"), nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var want, got []*service.StoredBlock
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(n.content), &got); err != nil {
		t.Fatal(err)
	}
	content := func(bs []*service.StoredBlock) (ids []string) {
		for _, b := range bs {
			if !service.IsTransferMarker(b.Type) {
				ids = append(ids, b.ID)
			}
		}
		return ids
	}
	if fmt.Sprint(content(got)) != fmt.Sprint(content(want)) {
		t.Errorf("page %s is half there: blocks %v, want %v", n.TitlePlain, content(got), content(want))
	}
}

func export(t *testing.T, svc *service.Service, p *quire.Principal, dir string) {
	t.Helper()
	out, err := transfer.NewSink(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := transfer.Export(ctx, svc, p, out, nil); err != nil || len(sum.Failed) != 0 {
		t.Fatalf("Export = %+v, %v", sum, err)
	}
}

// files reads every file under dir by its path.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, dir)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
