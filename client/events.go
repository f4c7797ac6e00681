package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// EventsService reads the workspace's change feed: every write's events in commit order
// (GET /v2/events), and the same live as Server-Sent Events (GET /v2/events/stream).
type EventsService struct{ c *Client }

// Event is one change: Type ("page.created", "page.content_updated", "database.moved" …) of
// Entity, with what changed in Data (block ids, property ids, from/to parents).
type Event struct {
	Object      string          `json:"object"`
	ID          string          `json:"id"`
	Type        string          `json:"type"`
	CreatedTime time.Time       `json:"created_time"`
	WorkspaceID string          `json:"workspace_id"`
	Entity      EventEntity     `json:"entity"`
	Parent      *Parent         `json:"parent,omitempty"`
	Authors     []UserRef       `json:"authors"`
	Data        json.RawMessage `json:"data"`
}

// EventEntity is what an event is about: a page, database, view, mind_map, block or
// file_upload, by id.
type EventEntity struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// EventsOptions chooses the events to read: after StartCursor (from the feed's start, or for
// a stream from its end, when empty), of Types and about EntityID when set.
type EventsOptions struct {
	StartCursor string
	PageSize    int
	Types       []string
	EntityID    string
}

func (o EventsOptions) query(cursor string) url.Values {
	q := listQuery(o.PageSize, cursor)
	if len(o.Types) > 0 {
		q.Set("types", strings.Join(o.Types, ","))
	}
	if o.EntityID != "" {
		q.Set("entity_id", o.EntityID)
	}
	return q
}

// Page reads one page of the feed. Its NextCursor is never nil, even at the feed's end: keep
// it and read again later to get what was written since.
func (s *EventsService) Page(ctx context.Context, opts EventsOptions) (*List[*Event], error) {
	var out List[*Event]
	_, err := s.c.do(ctx, request{method: "GET", path: "/v2/events", query: opts.query(opts.StartCursor)}, &out)
	return ret(&out, err)
}

// List yields the events from opts.StartCursor up to the feed's end as it is now. To resume
// later from where it stopped, read with Page, whose NextCursor marks the spot.
func (s *EventsService) List(ctx context.Context, opts EventsOptions) iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		cursor := opts.StartCursor
		for {
			page, err := s.Page(ctx, EventsOptions{StartCursor: cursor, PageSize: opts.PageSize, Types: opts.Types, EntityID: opts.EntityID})
			if err != nil {
				yield(nil, err)
				return
			}
			for _, e := range page.Results {
				if !yield(e, nil) {
					return
				}
			}
			if !page.HasMore || page.NextCursor == nil {
				return
			}
			cursor = *page.NextCursor
		}
	}
}

// Stream follows the feed live until ctx ends or fn returns an error (which Stream returns):
// fn gets each event with the cursor that resumes right after it. A dropped connection is
// opened again from the last cursor (Last-Event-ID), after a pause that grows up to the
// client's longest retry delay, so no event is missed or repeated.
func (s *EventsService) Stream(ctx context.Context, opts EventsOptions, fn func(e *Event, cursor string) error) error {
	cursor, failures := opts.StartCursor, 0
	for {
		read, err := s.stream(ctx, opts, cursor, func(e *Event, next string) error {
			cursor = next
			return fn(e, next)
		})
		var stop *stopError
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &stop):
			return stop.err
		case errors.As(err, new(*Error)):
			return err // refused (a bad cursor, a missing scope): trying again changes nothing
		}
		if read {
			failures = 0
		}
		failures++
		if err := sleep(ctx, s.c.backoff(failures)); err != nil {
			return err
		}
	}
}

// stopError carries fn's error out of one connection.
type stopError struct{ err error }

func (e *stopError) Error() string { return e.err.Error() }

// stream reads one connection until it ends; read tells whether any event came through it.
func (s *EventsService) stream(ctx context.Context, opts EventsOptions, cursor string, fn func(*Event, string) error) (read bool, err error) {
	u := s.c.base + "/v2/events/stream"
	if q := opts.query("").Encode(); q != "" {
		u += "?" + q
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Authorization", "Bearer "+s.c.token)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("User-Agent", s.c.ua)
	if cursor != "" {
		req.Header.Set("Last-Event-ID", cursor)
	}
	res, err := s.c.http.Do(req)
	if err != nil {
		return false, err
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		body, _ := io.ReadAll(res.Body)
		return false, decodeError(res, body)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var id, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != "" {
				var e Event
				if err := json.Unmarshal([]byte(data), &e); err != nil {
					return read, fmt.Errorf("quire: decoding a streamed event: %w", err)
				}
				read = true
				if err := fn(&e, id); err != nil {
					return read, &stopError{err}
				}
			}
			id, data = "", ""
		case strings.HasPrefix(line, "id:"):
			id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			if data != "" {
				data += "\n" // several data lines are one message, joined by newlines
			}
			data += strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
		}
	}
	if err := sc.Err(); err != nil {
		return read, err
	}
	return read, io.ErrUnexpectedEOF
}
