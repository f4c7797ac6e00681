// Package client is a Go client of Quire's /v2 API: typed requests and answers for pages,
// blocks, Markdown, databases (records, queries, mutations, views), mind maps, users, the
// workspace, keyword and semantic search, files, and the change feed (events).
//
// It imports nothing but the standard library, so an integration needs only
//
//	import "github.com/quire-dev/quire/client"
//
// # Connecting
//
// New takes the server's address and a token; every call takes a context first.
//
//	c := client.New("http://127.0.0.1:8080", os.Getenv("QUIRE_TOKEN"))
//	me, err := c.Users.Me(ctx)
//
// # Writing content
//
// Blocks and property values keep the API's JSON shape (a Block's Content and a
// PropertyValue are maps), with constructors for the common kinds: Paragraph, Heading,
// ToDo, BulletedItem, NumberedItem, Quote, Code, FileBlock; TitleValue, RichTextValue,
// NumberValue, SelectValue, MultiSelectValue, CheckboxValue, DateValue; and schema
// properties TitleProperty, SelectProperty, NumberProperty … Any other kind is a map
// literal of the API's shape. Values read back through typed accessors: PlainText, Number,
// SelectName, OptionNames, Date, Checked, or Decode into a struct of your own.
//
//	page, err := c.Pages.Create(ctx, client.PageCreate{
//		Parent:     client.WorkspaceParent(),
//		Properties: map[string]client.PropertyValue{"title": client.TitleValue("Meeting notes")},
//		Children:   []client.Block{client.Heading(1, client.Text("Agenda")...), client.ToDo(false, client.Text("Ship it")...)},
//	})
//
// # Errors
//
// An answer of 400 or above is an *Error carrying the status, the code, every failing
// field's path and reason, and the request id:
//
//	var apiErr *client.Error
//	if errors.As(err, &apiErr) && apiErr.Code == client.CodeValidation {
//		for _, d := range apiErr.Details {
//			log.Printf("%s: %s (request %s)", d.Path, d.Reason, apiErr.RequestID)
//		}
//	}
//
// # Changes
//
// Events reads what every write changed, in commit order: Page a page at a time (its
// NextCursor is never nil, so a saved cursor resumes right after the last event read),
// List to the feed's current end, and Stream live, reconnecting from the last cursor:
//
//	err := c.Events.Stream(ctx, client.EventsOptions{Types: []string{"page.created"}},
//		func(e *client.Event, cursor string) error { log.Println(e.Type, e.Entity.ID); return nil })
//
// Webhooks manages the workspace's webhooks (Create shows the secret once); a receiver checks
// each delivery with VerifySignature before trusting it.
//
// # Retries and Idempotency-Key
//
// A call refused with 429 or 503, or cut off by the network, is sent again, up to 4 tries
// (WithMaxTries): after the Retry-After the server asked for (or RateLimit-Reset when the
// bucket is empty), else after a capped exponential backoff with jitter (WithBackoff). Every
// POST, PATCH and PUT carries an Idempotency-Key made once per call and kept by its retries,
// so a write whose answer was lost is replayed by the server, never applied twice.
// IdempotencyKey sets the key yourself, to make a write once across processes.
//
// # Versions
//
// Pages, blocks, databases, views and mind maps keep the ETag their answer carried; IfMatch
// makes a write apply only to that version, and a stale one fails with CodeConflict:
//
//	page, _ := c.Pages.Get(ctx, id)
//	_, err := c.Pages.Update(ctx, id, client.PagePatch{ClearIcon: true}, client.IfMatch(page.ETag))
//
// # Pagination
//
// Lists are iterators (iter.Seq2) that follow next_cursor as the loop goes; breaking out
// stops fetching, and a failed request ends the loop with its error:
//
//	for node, err := range c.Pages.List(ctx, client.ListPagesOptions{ParentID: id}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(node.Title, node.HasChildren)
//	}
//
// The examples show each capability in a few lines.
package client
