package httpapi

import (
	"context"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// eventObject is one change in the workspace's feed.
type eventObject struct {
	Object      string        `json:"object" enum:"event"`
	ID          string        `json:"id" format:"uuid"`
	Type        string        `json:"type" doc:"What happened: page.created, page.properties_updated, page.content_updated, page.moved, page.deleted, page.restored, the same for database.* with database.schema_updated, view.created|updated|deleted, mind_map.updated, file_upload.completed."`
	CreatedTime string        `json:"created_time" format:"date-time" doc:"When the change committed."`
	WorkspaceID string        `json:"workspace_id" format:"uuid"`
	Entity      eventEntity   `json:"entity"`
	Parent      *parentObject `json:"parent,omitempty" doc:"Where the entity lives when the event was recorded; absent for an upload made for no page."`
	Authors     []eventAuthor `json:"authors" nullable:"false" doc:"The user the token acts for, then the token (bot_user)."`
	Data        eventData     `json:"data"`
}

// eventEntity is what the event is about.
type eventEntity struct {
	Type string `json:"type" enum:"page,database,view,mind_map,block,file_upload"`
	ID   string `json:"id" format:"uuid"`
}

// eventAuthor is who made the change.
type eventAuthor struct {
	Object string `json:"object" enum:"user,bot_user"`
	ID     string `json:"id" format:"uuid"`
}

// eventData is what changed, as far as the type says more than the entity.
type eventData struct {
	PropertyIDs []string      `json:"property_ids,omitempty" doc:"Properties set on a record (properties_updated) or changed in a schema (schema_updated)."`
	Fields      []string      `json:"fields,omitempty" doc:"Fields of the page or database itself a PATCH set: title, icon, cover, description, is_inline."`
	BlockIDs    []string      `json:"block_ids,omitempty" doc:"Top-level blocks appended, or the block updated, trashed or restored (content_updated). Absent when the whole content was replaced (Markdown PUT)."`
	From        *parentObject `json:"from,omitempty" doc:"The parent before a move."`
	To          *parentObject `json:"to,omitempty" doc:"The parent after a move."`
}

// eventList is one page of the feed. Unlike other lists its next_cursor is never null: the
// feed grows, and a client resumes from the cursor of its last page later.
type eventList struct {
	Object     string        `json:"object" enum:"list"`
	Results    []eventObject `json:"results" nullable:"false"`
	NextCursor string        `json:"next_cursor" doc:"Resumes right after the last event examined, even on the last page: keep it and read again later."`
	HasMore    bool          `json:"has_more" doc:"More events are there now."`
}

type eventListOutput struct{ Body eventList }

// EventParams are the query parameters that narrow the feed (exported: huma reads the fields
// of exported embedded structs only).
type EventParams struct {
	Types    string `query:"types" maxLength:"2000" doc:"Comma-separated event types; only these."`
	EntityID string `query:"entity_id" maxLength:"100" doc:"Only events about this entity."`
}

func (f EventParams) query(cursor string, size int) service.EventQuery {
	q := service.EventQuery{StartCursor: cursor, PageSize: size, EntityID: f.EntityID}
	for t := range strings.SplitSeq(f.Types, ",") {
		if t = strings.TrimSpace(t); t != "" {
			q.Types = append(q.Types, t)
		}
	}
	return q
}

type listEventsInput struct {
	PageParams
	EventParams
}

func (s *Server) registerEvents() {
	s.streams.done = make(chan struct{})
	register(s, op("list-events", http.MethodGet, "/v2/events", "Events",
		"List events",
		"The workspace's changes in commit order, oldest first, as the writes that made them committed: "+
			"every acknowledged write is there exactly once, a rolled-back one never. The token sees the events about what it "+
			"reaches now, of the kinds its scopes read (pages.read: pages, records, blocks, mind maps, uploads; databases.read: "+
			"databases and views). Events are kept 30 days (the server's --event-retention); a start_cursor older than that "+
			"answers 400.\n\nScopes: `pages.read` or `databases.read`."), route{}, s.listEvents)
	evSchema := s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[eventObject](), true, "")
	register(s, huma.Operation{
		OperationID: "stream-events", Method: http.MethodGet, Path: "/v2/events/stream",
		Summary: "Stream events", Tags: []string{"Events"},
		Description: "The feed of GET /v2/events as Server-Sent Events, live: each message has the event type as `event`, " +
			"the event object as `data`, and as `id` the cursor that resumes right after it. It resumes after Last-Event-ID " +
			"(or start_cursor); without either it starts at the feed's end. A comment line is sent every 15 s so that idle " +
			"connections stay open. A write through any server on the same store reaches the stream within a second." +
			"\n\nScopes: `pages.read` or `databases.read`.",
		Responses: map[string]*huma.Response{"200": {Description: "An endless stream of events.",
			Content: map[string]*huma.MediaType{"text/event-stream": {Schema: evSchema}}}},
	}, route{}, s.streamEvents)
}

// listEvents answers GET /v2/events.
func (s *Server) listEvents(ctx context.Context, in *listEventsInput) (*eventListOutput, error) {
	p := principal(ctx)
	page, err := s.svc.Events(ctx, p, in.EventParams.query(in.StartCursor, in.PageSize))
	if err != nil {
		return nil, err
	}
	out := eventList{Object: "list", Results: make([]eventObject, len(page.Events)), NextCursor: page.Next, HasMore: page.HasMore}
	for i, ev := range page.Events {
		out.Results[i] = newEventObject(ev)
	}
	return &eventListOutput{Body: out}, nil
}

func newEventObject(ev quire.Event) eventObject {
	o := eventObject{Object: "event", ID: ev.ID, Type: ev.Type, CreatedTime: quire.FormatMillis(ev.CreatedMs),
		WorkspaceID: ev.WorkspaceID, Entity: eventEntity{Type: ev.EntityType, ID: ev.EntityID}, Authors: []eventAuthor{},
		Data: eventData{PropertyIDs: ev.Data.PropertyIDs, Fields: ev.Data.Fields, BlockIDs: ev.Data.BlockIDs,
			From: eventParent(ev.Data.From), To: eventParent(ev.Data.To)}}
	if ev.ParentType != "" {
		pt := newParent(ev.ParentType, ev.ParentID)
		o.Parent = &pt
	}
	if ev.UserID != "" {
		o.Authors = append(o.Authors, eventAuthor{Object: "user", ID: ev.UserID})
	}
	if ev.BotID != "" {
		o.Authors = append(o.Authors, eventAuthor{Object: "bot_user", ID: ev.BotID})
	}
	return o
}

func eventParent(p *quire.EventParent) *parentObject {
	if p == nil {
		return nil
	}
	o := newParent(p.Type, p.ID)
	return &o
}
