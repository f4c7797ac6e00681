package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quire-dev/quire/client"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestEvents reads the feed a page at a time and whole, then follows it live through a
// dropped connection: every event once, in order, on both engines.
func TestEvents(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		s := newServer(t, st, 0)
		c := s.client()
		ctx := context.Background()
		page := must(c.Pages.Create(ctx, client.PageCreate{Parent: client.WorkspaceParent(),
			Properties: map[string]client.PropertyValue{"title": client.TitleValue("Watched")}}))(t)
		must(c.Blocks.Append(ctx, page.ID, client.AppendRequest{Children: []client.Block{client.Paragraph(client.Plain("one"))}}))(t)

		var types []string
		for e, err := range c.Events.List(ctx, client.EventsOptions{PageSize: 1, EntityID: page.ID}) {
			if err != nil {
				t.Fatal(err)
			}
			types = append(types, e.Type)
		}
		if len(types) != 2 || types[0] != "page.created" || types[1] != "page.content_updated" {
			t.Fatalf("Events.List = %v", types)
		}
		end := must(c.Events.Page(ctx, client.EventsOptions{PageSize: 100}))(t)
		if end.NextCursor == nil || end.HasMore {
			t.Fatalf("the feed's last page: next_cursor %v, has_more %v", end.NextCursor, end.HasMore)
		}

		// Live from the end: two writes, the connection dropped between them.
		got := make(chan *client.Event, 10)
		sctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			done <- c.Events.Stream(sctx, client.EventsOptions{StartCursor: *end.NextCursor, Types: []string{"page.content_updated"}},
				func(e *client.Event, cursor string) error {
					if cursor == "" {
						return errors.New("an event without its cursor")
					}
					got <- e
					return nil
				})
		}()
		time.Sleep(200 * time.Millisecond) // the stream is open (an event before it would be read anyway: it starts at the cursor)
		first := must(c.Blocks.Append(ctx, page.ID, client.AppendRequest{Children: []client.Block{client.Paragraph(client.Plain("two"))}}))(t)
		wantBlock(t, got, first[0].ID)
		s.ts.CloseClientConnections()
		second := must(c.Blocks.Append(ctx, page.ID, client.AppendRequest{Children: []client.Block{client.Paragraph(client.Plain("three"))}}))(t)
		wantBlock(t, got, second[0].ID)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Stream ended with %v, want context.Canceled", err)
		}
		if len(got) != 0 {
			t.Fatalf("an event came twice: %+v", <-got)
		}

		// fn's error ends the stream and is what Stream answers; a stream from a cursor starts
		// right after it.
		firstOnly := must(c.Events.Page(ctx, client.EventsOptions{PageSize: 1}))(t)
		stop := errors.New("enough")
		var seen *client.Event
		err := c.Events.Stream(ctx, client.EventsOptions{StartCursor: *firstOnly.NextCursor}, func(e *client.Event, _ string) error {
			seen = e
			return stop
		})
		if !errors.Is(err, stop) || seen == nil || seen.ID == firstOnly.Results[0].ID {
			t.Fatalf("Stream = %v after %+v; the first event was %s", err, seen, firstOnly.Results[0].ID)
		}
		// A refusal is not retried: it is the answer.
		var apiErr *client.Error
		if err := c.Events.Stream(ctx, client.EventsOptions{StartCursor: "not-a-cursor"}, func(*client.Event, string) error { return nil }); !errors.As(err, &apiErr) || apiErr.Code != "validation_error" {
			t.Fatalf("Stream from a bad cursor = %v", err)
		}
	})
}

// wantBlock waits for the next streamed event and checks it is the append of block id.
func wantBlock(t *testing.T, got <-chan *client.Event, id string) {
	t.Helper()
	select {
	case e := <-got:
		if e.Type != "page.content_updated" || !strings.Contains(string(e.Data), id) {
			t.Fatalf("streamed %s %s, want the append of %s", e.Type, e.Data, id)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the append of %s was not streamed", id)
	}
}
