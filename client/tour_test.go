package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/client"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestTour walks README's curl tour through the client, on both engines.
func TestTour(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		s := newServer(t, st, 0)
		c := s.client()
		ctx := context.Background()

		me := must(c.Users.Me(ctx))(t)
		if me.Object != "bot_user" || !me.WorkspaceScoped || !me.Capabilities["pages.write"] || me.WorkspaceID != s.ws.ID {
			t.Fatalf("Me = %+v", me)
		}
		users := collect(t, c.Users.List(ctx, client.ListOptions{PageSize: 1}))
		if len(users) != 1 || users[0].ID != s.owner.ID {
			t.Fatalf("Users.List = %+v", users)
		}
		meta := must(c.DocumentMeta(ctx))(t)
		doc := must(c.Document(ctx))(t)
		if sum := sha256.Sum256(doc); meta.ETag != hex.EncodeToString(sum[:]) || meta.PathCount == 0 {
			t.Fatalf("DocumentMeta = %+v; the document's SHA-256 is %x", meta, sum)
		}
		ada := must(c.Users.Get(ctx, s.owner.ID))(t)
		if ada.Name != "Ada Lovelace" || ada.Person == nil || ada.Person.Email != "ada@example.com" {
			t.Fatalf("Users.Get = %+v", ada)
		}

		page := must(c.Pages.Create(ctx, client.PageCreate{
			Parent:     client.WorkspaceParent(),
			Properties: map[string]client.PropertyValue{"title": client.TitleValue("Meeting notes")},
			Icon:       client.Emoji("📝"),
			Children: []client.Block{
				client.Heading(1, client.Text("Agenda")...),
				client.ToDo(true, client.Text("Ship it")...),
				client.Code("go", "fmt.Println(42)"),
			},
		}))(t)
		if page.Title() != "Meeting notes" || page.Icon == nil || page.Icon.Emoji != "📝" || page.ETag == "" {
			t.Fatalf("Pages.Create = %+v", page)
		}
		added := must(c.Blocks.Append(ctx, page.ID, client.AppendRequest{Children: []client.Block{
			client.Paragraph(client.Plain("Added later, "), client.Bold("in bold")),
		}}))(t)
		first := must(c.Blocks.Append(ctx, page.ID, client.AppendRequest{
			Children: []client.Block{client.Paragraph(client.Text("First")...)}, Position: "start"}))(t)
		blocks := collect(t, c.Blocks.Children(ctx, page.ID, client.ListOptions{}))
		var types []string
		for _, b := range blocks {
			types = append(types, b.Type)
		}
		if want := []string{"paragraph", "heading_1", "to_do", "code", "paragraph"}; !slices.Equal(types, want) {
			t.Fatalf("block types = %v, want %v", types, want)
		}
		if blocks[0].ID != first[0].ID || blocks[4].ID != added[0].ID || blocks[2].Content["checked"] != true {
			t.Fatalf("blocks = %+v", blocks)
		}
		got := must(c.Blocks.Get(ctx, added[0].ID))(t)
		if client.PlainText(got.RichText()) != "Added later, in bold" {
			t.Fatalf("Blocks.Get rich text = %q", client.PlainText(got.RichText()))
		}
		change := client.BlockPatch{Type: "paragraph", Content: map[string]any{"rich_text": client.Text("Changed")}}
		upd := must(c.Blocks.Update(ctx, got.ID, change, client.IfMatch(got.ETag)))(t)
		if client.PlainText(upd.RichText()) != "Changed" || got.ETag == "" || upd.ETag == got.ETag {
			t.Fatalf("Blocks.Update = %+v; read ETag %q", upd, got.ETag)
		}
		var stale *client.Error
		if _, err := c.Blocks.Update(ctx, got.ID, change, client.IfMatch(got.ETag)); !errors.As(err, &stale) || stale.Code != client.CodeConflict {
			t.Fatalf("Blocks.Update with a stale ETag: %v", err)
		}
		if del := must(c.Blocks.Delete(ctx, first[0].ID))(t); !del.InTrash {
			t.Fatalf("Blocks.Delete = %+v", del)
		}

		md := must(c.Pages.Markdown(ctx, page.ID))(t)
		if !strings.Contains(md, "# Agenda") || !strings.Contains(md, "- [x] Ship it") || strings.Contains(md, "First") {
			t.Fatalf("Markdown = %q", md)
		}
		sub := must(c.Pages.Create(ctx, client.PageCreate{Parent: client.PageParent(page.ID),
			Properties: map[string]client.PropertyValue{"title": client.TitleValue("Sub-page")}, Markdown: "- [ ] a task\n- [x] done"}))(t)
		if sub.Parent.PageID != page.ID {
			t.Fatalf("sub-page parent = %+v", sub.Parent)
		}
		must(c.Pages.SetMarkdown(ctx, sub.ID, "## Replaced"))(t)
		if md := must(c.Pages.Markdown(ctx, sub.ID))(t); strings.TrimSpace(md) != "## Replaced" {
			t.Fatalf("Markdown after SetMarkdown = %q", md)
		}
		top := collect(t, c.Pages.List(ctx, client.ListPagesOptions{}))
		if len(top) != 1 || top[0].ID != page.ID || !top[0].HasChildren || top[0].Object != "page_node" {
			t.Fatalf("Pages.List = %+v", top)
		}
		kids := collect(t, c.Pages.List(ctx, client.ListPagesOptions{ParentID: page.ID}))
		if len(kids) != 1 || kids[0].Title != "Sub-page" {
			t.Fatalf("Pages.List(parent) = %+v", kids)
		}
		wp := must(c.Workspace.Pages(ctx, client.ListOptions{}))(t)
		if len(wp.Team.Results) != 1 || wp.Team.Results[0].ID != page.ID {
			t.Fatalf("Workspace.Pages = %+v", wp)
		}

		// Versions: a write with the ETag read applies; the same stale ETag then conflicts.
		cur := must(c.Pages.Get(ctx, page.ID))(t)
		cleared := must(c.Pages.Update(ctx, page.ID, client.PagePatch{ClearIcon: true}, client.IfMatch(cur.ETag)))(t)
		if cleared.Icon != nil || cleared.ETag == cur.ETag {
			t.Fatalf("Update with If-Match = icon %+v etag %q (was %q)", cleared.Icon, cleared.ETag, cur.ETag)
		}
		_, err := c.Pages.Update(ctx, page.ID, client.PagePatch{Icon: client.Emoji("🚀")}, client.IfMatch(cur.ETag))
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Status != 409 || apiErr.Code != client.CodeConflict || apiErr.RequestID == "" {
			t.Fatalf("stale If-Match: %v", err)
		}
		if p := must(c.Pages.Get(ctx, page.ID))(t); p.Icon != nil {
			t.Fatalf("a conflicting update changed the page: %+v", p.Icon)
		}

		tourDatabase(t, c, page.ID)
		tourMindMapFilesSearch(t, s, c, page.ID)

		moved := must(c.Pages.Move(ctx, sub.ID, client.PageMove{Parent: client.WorkspaceParent()}))(t)
		if !moved.Parent.Workspace {
			t.Fatalf("Move = %+v", moved.Parent)
		}
		ws := must(c.Workspace.Get(ctx))(t)
		if ws.Name != "Acme" || ws.MemberCount != 1 || ws.PageCount < 3 || ws.DatabaseCount != 1 {
			t.Fatalf("Workspace.Get = %+v", ws)
		}
	})
}

// tourDatabase creates a database under parent, a record, a query, a mutation and views.
func tourDatabase(t *testing.T, c *client.Client, parent string) {
	ctx := context.Background()
	db := must(c.Databases.Create(ctx, client.DatabaseCreate{
		Parent: client.PageParent(parent), Title: client.Text("Tasks"),
		Properties: map[string]client.PropertySchema{"Name": client.TitleProperty(),
			"Status": client.SelectProperty("To do", "Done"), "Points": client.NumberProperty(),
			"Due": client.DateProperty(), "Tags": client.MultiSelectProperty("api", "docs"), "Done": client.CheckboxProperty()},
	}))(t)
	if db.Properties["Status"].Type() != "select" || db.ETag == "" {
		t.Fatalf("Databases.Create = %+v", db)
	}
	rec := must(c.Databases.CreateRecord(ctx, db.ID, map[string]client.PropertyValue{
		"Name": client.TitleValue("Ship it"), "Status": client.SelectValue("To do"), "Points": client.NumberValue(3),
		"Due": client.DateValue("2026-12-01", "2026-12-03"), "Tags": client.MultiSelectValue("docs", "api"), "Done": client.CheckboxValue(true)}))(t)
	start, end, dated := rec.Properties["Due"].Date()
	if rec.Properties["Status"].SelectName() != "To do" || !dated || start != "2026-12-01" || end != "2026-12-03" ||
		!slices.Equal(rec.Properties["Tags"].OptionNames(), []string{"docs", "api"}) || !rec.Properties["Done"].Checked() {
		t.Fatalf("record = %+v", rec.Properties)
	}
	if name := must(c.Pages.Property(ctx, rec.ID, "Name"))(t); name.Type != "title" || name.Value != nil || name.PlainText() != "Ship it" {
		t.Fatalf("Pages.Property(Name) = %+v", name)
	}
	if pts := must(c.Pages.Property(ctx, rec.ID, db.Properties["Points"].ID()))(t); pts.Type != "number" || pts.Items != nil {
		t.Fatalf("Pages.Property(Points) = %+v", pts)
	} else if n, ok := pts.Value.Number(); !ok || n != 3 {
		t.Fatalf("Pages.Property(Points) value = %v", pts.Value)
	}
	made := must(c.Databases.Mutate(ctx, db.ID, []client.Mutation{
		{Op: "create", Properties: map[string]client.PropertyValue{"Name": client.TitleValue("Write docs"), "Status": client.SelectValue("To do"), "Points": client.NumberValue(5)}},
		{Op: "update", PageID: rec.ID, Properties: map[string]client.PropertyValue{"Points": client.NumberValue(8)}},
	}))(t)
	if len(made) != 2 {
		t.Fatalf("Mutate = %+v", made)
	}
	if _, _, dated := made[0].Properties["Due"].Date(); dated || made[0].Properties["Done"].Checked() || len(made[0].Properties["Tags"].OptionNames()) != 0 {
		t.Fatalf("a record without Due, Done and Tags = %+v", made[0].Properties)
	}
	todo := collect(t, c.Databases.Query(ctx, db.ID, client.Query{
		Filter: client.PropertyFilter("Status", "select", "equals", "To do"),
		Sorts:  []client.Sort{{Property: "Points", Direction: "descending"}}}))
	var points []float64
	for _, r := range todo {
		n, _ := r.Properties["Points"].Number()
		points = append(points, n)
	}
	if !slices.Equal(points, []float64{8, 5}) {
		t.Fatalf("query points = %v, want [8 5]", points)
	}
	renamed := must(c.Databases.Update(ctx, db.ID, client.DatabasePatch{Title: client.Text("Work")}, client.IfMatch(db.ETag)))(t)
	if client.PlainText(renamed.Title) != "Work" {
		t.Fatalf("Databases.Update = %+v", renamed.Title)
	}
	if got := must(c.Databases.Get(ctx, db.ID))(t); got.ETag != renamed.ETag {
		t.Fatalf("Databases.Get etag %q, want %q", got.ETag, renamed.ETag)
	}

	view := must(c.Views.Create(ctx, db.ID, client.ViewWrite{Name: "All", Type: "table"}))(t)
	board := must(c.Views.Create(ctx, db.ID, client.ViewWrite{Name: "Board", Type: "board",
		GroupBy: []byte(`{"property":"` + db.Properties["Status"].ID() + `"}`)}))(t)
	patched := must(c.Views.Update(ctx, db.ID, view.ID, client.ViewWrite{Name: "Everything",
		PageSort: []string{rec.ID}}, client.IfMatch(view.ETag)))(t)
	if patched.Name != "Everything" || patched.Type != "table" {
		t.Fatalf("Views.Update = %+v", patched)
	}
	if detail := must(c.Views.Get(ctx, db.ID, view.ID))(t); !slices.Equal(detail.PageSort, []string{rec.ID}) {
		t.Fatalf("Views.Get page_sort = %v", detail.PageSort)
	}
	must(c.Views.Delete(ctx, db.ID, board.ID))(t)
	views := collect(t, c.Views.List(ctx, db.ID, client.ListOptions{}))
	if len(views) != 1 || views[0].ID != view.ID {
		t.Fatalf("Views.List = %+v", views)
	}
}

// tourMindMapFilesSearch makes a mind map and a file under parent, then searches.
func tourMindMapFilesSearch(t *testing.T, s *server, c *client.Client, parent string) {
	ctx := context.Background()
	mm := must(c.MindMaps.Create(ctx, client.MindMapCreate{Parent: client.PageParent(parent), Title: "Plan",
		Root: &client.MindNode{Text: "Launch", Children: []client.MindNode{{Text: "Docs"}}}}))(t)
	mm = must(c.MindMaps.Get(ctx, mm.ID))(t)
	edited := must(c.MindMaps.Update(ctx, mm.ID, client.MindMapPatch{Edits: []client.MindMapEdit{
		client.AddNode(mm.Root.ID, client.MindNode{Text: "Tests"}),
		client.UpdateNodeText(mm.Root.Children[0].ID, "Manual"),
	}}, client.IfMatch(mm.ETag)))(t)
	var texts []string
	for _, n := range edited.Root.Children {
		texts = append(texts, n.Text)
	}
	if !slices.Equal(texts, []string{"Manual", "Tests"}) || edited.NodeCount != 3 {
		t.Fatalf("mind map children = %v (%d nodes)", texts, edited.NodeCount)
	}

	up := must(c.Files.UploadURL(ctx, client.FileUploadRequest{Filename: "notes.txt", ContentType: "text/plain", Size: 6}))(t)
	done := must(c.Files.Upload(ctx, up, strings.NewReader("hello!")))(t)
	if done.Status != "uploaded" {
		t.Fatalf("Upload = %+v", done)
	}
	fb := must(c.Blocks.Append(ctx, parent, client.AppendRequest{Children: []client.Block{client.FileBlock(up.ID)}}))(t)
	if fb[0].Type != "file" {
		t.Fatalf("file block = %+v", fb[0])
	}
	dl := must(c.Files.DownloadURL(ctx, up.ID))(t)
	res := must(http.Get(dl.URL))(t)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Equal(body, []byte("hello!")) {
		t.Fatalf("downloaded %q", body)
	}

	hits := collect(t, c.Search.Keyword(ctx, client.SearchRequest{Query: "ship"}))
	var titles []string
	for _, h := range hits {
		titles = append(titles, h.Title())
	}
	// The record titled "Ship it" ranks before the page holding a "Ship it" block.
	if !slices.Equal(titles, []string{"Ship it", "Meeting notes"}) || hits[0].Page == nil {
		t.Fatalf("keyword search titles = %q", titles)
	}
	dbs := collect(t, c.Search.Keyword(ctx, client.SearchRequest{Filter: client.ObjectFilter("database")}))
	if len(dbs) != 1 || dbs[0].Database == nil || dbs[0].Title() != "Work" {
		t.Fatalf("database search: %+v", dbs)
	}
	s.index(t)
	sem := must(c.Search.Semantic(ctx, client.SemanticRequest{Query: "meeting notes", PageSize: 3}))(t)
	if len(sem) == 0 || sem[0].Object != "semantic_search_result" || sem[0].PageID == "" {
		t.Fatalf("semantic search: %+v", sem)
	}
	mindMaps := collect(t, c.Workspace.Section(ctx, "mind_maps", client.ListOptions{}))
	if len(mindMaps) != 1 || mindMaps[0].ID != mm.ID {
		t.Fatalf("mind_maps section: %+v", mindMaps)
	}
}
