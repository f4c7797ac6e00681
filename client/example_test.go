package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/quire-dev/quire/client"
)

var ctx = context.Background()

func ExampleNew() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"), client.WithMaxTries(6))
	me, err := c.Users.Me(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(me.WorkspaceName, me.Capabilities["pages.write"])
}

func ExampleUsersService_List() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	for user, err := range c.Users.List(ctx, client.ListOptions{PageSize: 100}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(user.Name)
	}
}

func ExamplePagesService_Create() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	page, err := c.Pages.Create(ctx, client.PageCreate{
		Parent:     client.WorkspaceParent(),
		Properties: map[string]client.PropertyValue{"title": client.TitleValue("Release plan")},
		Icon:       client.Emoji("🚀"),
		Children: []client.Block{
			client.Heading(2, client.Text("Steps")...),
			client.BulletedItem(client.Text("Tag")...).WithChildren(client.ToDo(false, client.Text("sign it")...)),
			client.Quote(client.Text("Ship small")...),
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	// A sub-page from Markdown.
	_, err = c.Pages.Create(ctx, client.PageCreate{Parent: client.PageParent(page.ID),
		Properties: map[string]client.PropertyValue{"title": client.TitleValue("Tasks")},
		Markdown:   "- [ ] a task\n- [x] done"})
	if err != nil {
		log.Fatal(err)
	}
}

func ExamplePagesService_List() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	// Walk the whole sidebar tree by following HasChildren.
	var walk func(parentID, indent string) error
	walk = func(parentID, indent string) error {
		for node, err := range c.Pages.List(ctx, client.ListPagesOptions{ParentID: parentID}) {
			if err != nil {
				return err
			}
			fmt.Println(indent + node.Title)
			if node.HasChildren {
				if err := walk(node.ID, indent+"  "); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk("", ""); err != nil {
		log.Fatal(err)
	}
}

func ExampleIdempotencyKey() {
	// Up to 6 tries: a 429 or 503 waits as Retry-After (or RateLimit-Reset) says, else a
	// jittered backoff from 1 s; a lost connection is retried too.
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"),
		client.WithMaxTries(6), client.WithBackoff(time.Second, time.Minute))
	// Every write carries a generated Idempotency-Key that its retries keep. A key of your own
	// makes the write once even when a restarted job sends it again.
	_, err := c.Pages.Create(ctx, client.PageCreate{
		Properties: map[string]client.PropertyValue{"title": client.TitleValue("Weekly report 2026-48")},
	}, client.IdempotencyKey("weekly-report-2026-48"))
	var apiErr *client.Error
	if errors.As(err, &apiErr) && apiErr.Code == client.CodeRateLimited {
		fmt.Println("still limited after 6 tries; the server asked to wait", apiErr.RetryAfter)
	}
}

func ExamplePagesService_Property() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	name, err := c.Pages.Property(ctx, "RECORD_ID", "Name")
	if err != nil {
		log.Fatal(err)
	}
	points, err := c.Pages.Property(ctx, "RECORD_ID", "Points")
	if err != nil {
		log.Fatal(err)
	}
	n, _ := points.Value.Number()
	fmt.Println(name.PlainText(), n)
}

func ExampleIfMatch() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	page, err := c.Pages.Get(ctx, "PAGE_ID")
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.Pages.Update(ctx, page.ID, client.PagePatch{ClearIcon: true}, client.IfMatch(page.ETag))
	var apiErr *client.Error
	if errors.As(err, &apiErr) && apiErr.Code == client.CodeConflict {
		fmt.Println("changed since read: read again and redo the change")
	}
}

func ExamplePagesService_Markdown() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	md, err := c.Pages.Markdown(ctx, "PAGE_ID")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.Pages.SetMarkdown(ctx, "PAGE_ID", strings.ToUpper(md)); err != nil {
		log.Fatal(err)
	}
}

func ExampleBlocksService_Append() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	added, err := c.Blocks.Append(ctx, "PAGE_ID", client.AppendRequest{
		Children: []client.Block{client.Paragraph(client.Plain("Added later, "), client.Bold("in bold"))},
		Position: "start",
	})
	if err != nil {
		log.Fatal(err)
	}
	for block, err := range c.Blocks.Children(ctx, "PAGE_ID", client.ListOptions{}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(block.Type, client.PlainText(block.RichText()))
	}
	if _, err := c.Blocks.Delete(ctx, added[0].ID); err != nil {
		log.Fatal(err)
	}
}

func ExampleDatabasesService_Query() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	db, err := c.Databases.Create(ctx, client.DatabaseCreate{
		Parent: client.PageParent("PAGE_ID"), Title: client.Text("Tasks"),
		Properties: map[string]client.PropertySchema{"Name": client.TitleProperty(),
			"Status": client.SelectProperty("To do", "Done"), "Points": client.NumberProperty()},
	})
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.Databases.CreateRecord(ctx, db.ID, map[string]client.PropertyValue{
		"Name": client.TitleValue("Ship it"), "Status": client.SelectValue("To do"), "Points": client.NumberValue(3)})
	if err != nil {
		log.Fatal(err)
	}
	q := client.Query{
		Filter: client.And(client.PropertyFilter("Status", "select", "equals", "To do"),
			client.PropertyFilter("Points", "number", "greater_than", 1)),
		Sorts: []client.Sort{{Property: "Points", Direction: "descending"}},
	}
	for rec, err := range c.Databases.Query(ctx, db.ID, q) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec.Title(), rec.Properties["Status"].SelectName())
	}
}

func ExampleDatabasesService_Mutate() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	records, err := c.Databases.Mutate(ctx, "DATABASE_ID", []client.Mutation{
		{Op: "create", Properties: map[string]client.PropertyValue{"Name": client.TitleValue("Write docs")}},
		{Op: "update", PageID: "RECORD_ID", Properties: map[string]client.PropertyValue{"Status": client.SelectValue("Done")}},
		{Op: "trash", PageID: "OLD_RECORD_ID"},
	})
	if err != nil {
		log.Fatal(err) // nothing was applied
	}
	fmt.Println(len(records))
}

func ExampleViewsService_Create() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	view, err := c.Views.Create(ctx, "DATABASE_ID", client.ViewWrite{Name: "Board", Type: "board",
		GroupBy: []byte(`{"property":"STATUS_PROPERTY_ID"}`)})
	if err != nil {
		log.Fatal(err)
	}
	// Clear the grouping, only if nobody changed the view meanwhile.
	if _, err := c.Views.Update(ctx, "DATABASE_ID", view.ID, client.ViewWrite{GroupBy: client.RawNull}, client.IfMatch(view.ETag)); err != nil {
		log.Fatal(err)
	}
}

func ExampleMindMapsService_Update() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	mm, err := c.MindMaps.Create(ctx, client.MindMapCreate{Parent: client.PageParent("PAGE_ID"), Title: "Plan",
		Root: &client.MindNode{Text: "Launch", Children: []client.MindNode{{Text: "Docs"}}}})
	if err != nil {
		log.Fatal(err)
	}
	mm, err = c.MindMaps.Update(ctx, mm.ID, client.MindMapPatch{Edits: []client.MindMapEdit{
		client.AddNode(mm.Root.ID, client.MindNode{Text: "Tests"}),
		client.UpdateNodeText(mm.Root.Children[0].ID, "Manual"),
	}}, client.IfMatch(mm.ETag))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(mm.NodeCount)
}

func ExampleSearchService_Keyword() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	for hit, err := range c.Search.Keyword(ctx, client.SearchRequest{Query: "ship", Filter: client.ObjectFilter("page")}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(hit.Object, hit.Title())
	}
	best, err := c.Search.Semantic(ctx, client.SemanticRequest{Query: "to-do items for the release", PageSize: 5})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(best))
}

func ExampleFilesService_Upload() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	data := "hello!"
	up, err := c.Files.UploadURL(ctx, client.FileUploadRequest{Filename: "notes.txt", ContentType: "text/plain", Size: int64(len(data))})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.Files.Upload(ctx, up, strings.NewReader(data)); err != nil {
		log.Fatal(err)
	}
	if _, err := c.Blocks.Append(ctx, "PAGE_ID", client.AppendRequest{Children: []client.Block{client.FileBlock(up.ID)}}); err != nil {
		log.Fatal(err)
	}
	dl, err := c.Files.DownloadURL(ctx, up.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dl.URL)
}

func ExampleWorkspaceService_Section() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	ws, err := c.Workspace.Get(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ws.Name, ws.PageCount)
	for item, err := range c.Workspace.Section(ctx, "recent", client.ListOptions{PageSize: 10}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(item.Object, item.Title())
	}
}

func ExampleEventsService_Page() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	cursor := "" // kept between runs: the feed resumes right after what was read
	page, err := c.Events.Page(ctx, client.EventsOptions{StartCursor: cursor, Types: []string{"page.created"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range page.Results {
		fmt.Println(e.Type, e.Entity.ID)
	}
	cursor = *page.NextCursor // never nil: read again later for what comes next
	_ = cursor
}

func ExampleEventsService_Stream() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	// Live, reconnecting by itself from the last event's cursor; return an error to stop.
	err := c.Events.Stream(ctx, client.EventsOptions{}, func(e *client.Event, cursor string) error {
		fmt.Println(e.Type, e.Entity.Type, e.Entity.ID, string(e.Data))
		return nil
	})
	log.Fatal(err)
}

func ExampleVerifySignature() {
	secret := os.Getenv("QUIRE_WEBHOOK_SECRET") // from Webhooks.Create's answer, shown once
	http.HandleFunc("/quire", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := client.VerifySignature(secret, r.Header.Get("Quire-Signature"), body, 5*time.Minute); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var e client.Event
		_ = json.Unmarshal(body, &e)
		fmt.Println(e.Type, e.Entity.ID) // a 2xx acknowledges it; a repeat has the same Quire-Event-Id
	})
}

func ExampleError() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
	_, err := c.Blocks.Append(ctx, "PAGE_ID", client.AppendRequest{Children: []client.Block{
		client.Paragraph(client.Text(strings.Repeat("x", 2001))...)}})
	var apiErr *client.Error
	if errors.As(err, &apiErr) {
		for _, d := range apiErr.Details {
			fmt.Println(apiErr.Code, d.Path, d.Reason, apiErr.RequestID)
		}
	}
}
