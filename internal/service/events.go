package service

import (
	"context"
	"slices"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// DefaultEventRetention is how long the feed keeps an event unless Options say otherwise.
const DefaultEventRetention = 30 * 24 * time.Hour

// EventQuery is a read of the feed.
type EventQuery struct {
	StartCursor string
	PageSize    int
	Types       []string // any of these; empty: all
	EntityID    string
}

// EventPage is one page of the feed. Next always resumes after the last event examined, even
// on the last page, so that a client polls the feed from it later.
type EventPage struct {
	Events  []quire.Event
	Next    string
	HasMore bool
}

// eventScanMost bounds the events one request examines: a token that sees few of a busy
// workspace's events gets a short page (with has_more) rather than a long scan.
const eventScanMost = 1000

// Events reads the feed of the caller's workspace after q.StartCursor ("" from its oldest
// kept event), keeping the events the token may see now: those about what it reaches, of
// the kinds its scopes read.
func (s *Service) Events(ctx context.Context, p *quire.Principal, q EventQuery) (*EventPage, error) {
	if !p.Has(quire.PagesRead) && !p.Has(quire.DatabasesRead) {
		return nil, quire.Forbidden("The feed needs the scope pages.read or databases.read.")
	}
	if err := checkPageSize(q.PageSize); err != nil {
		return nil, err
	}
	if err := checkEventFilter(q); err != nil {
		return nil, err
	}
	after, err := s.eventPosition(ctx, p, q.StartCursor)
	if err != nil {
		return nil, err
	}
	out := &EventPage{}
	f := store.EventFilter{Types: q.Types, EntityID: q.EntityID}
	for scanned := 0; ; {
		batch, err := s.store.Events(ctx, p.WorkspaceID(), after, 100, f)
		if err != nil {
			return nil, err
		}
		seen, err := s.eventsSeen(ctx, p, batch)
		if err != nil {
			return nil, err
		}
		for i, ev := range batch {
			if len(out.Events) == q.PageSize || scanned == eventScanMost {
				out.HasMore = true
				break
			}
			scanned++
			after = ev.Seq
			if seen[i] {
				out.Events = append(out.Events, ev)
			}
		}
		if out.HasMore || len(batch) < 100 {
			break
		}
	}
	out.Next, err = s.EventCursor(p, after)
	return out, err
}

// EventCursor is the cursor that resumes the feed after position seq (the SSE id of an event).
func (s *Service) EventCursor(p *quire.Principal, seq int64) (string, error) {
	return s.cursors.Encode(eventList(p), seq)
}

// EventsNow is the cursor of the feed's end: a stream opened without one starts there.
func (s *Service) EventsNow(ctx context.Context, p *quire.Principal) (string, error) {
	last, _, err := s.store.EventHead(ctx, p.WorkspaceID())
	if err != nil {
		return "", err
	}
	return s.EventCursor(p, last)
}

func eventList(p *quire.Principal) string { return "events:" + p.WorkspaceID() }

// eventPosition decodes a cursor of the feed into the position it resumes after, refusing one
// whose next events the retention sweep has deleted.
func (s *Service) eventPosition(ctx context.Context, p *quire.Principal, cursor string) (int64, error) {
	if cursor == "" {
		return 0, nil
	}
	var after int64
	if err := s.cursors.Decode(cursor, eventList(p), &after); err != nil {
		return 0, InvalidCursor()
	}
	_, swept, err := s.store.EventHead(ctx, p.WorkspaceID())
	if err != nil {
		return 0, err
	}
	if after < swept {
		return 0, quire.Invalid("start_cursor", quire.ReasonOutOfRange,
			"start_cursor is older than the feed keeps events (--event-retention): events after it were deleted; read the feed again without start_cursor.")
	}
	return after, nil
}

func checkEventFilter(q EventQuery) error {
	var pr quire.Problems
	for _, t := range q.Types {
		if !slices.Contains(quire.EventTypes, t) {
			pr.Add("types", quire.ReasonInvalidValue, "Unknown event type "+t+"; types is a comma-separated list of event types.")
		}
	}
	if q.EntityID != "" && !quire.ValidID(q.EntityID) {
		pr.Add("entity_id", quire.ReasonInvalidValue, "entity_id must be a UUID.")
	}
	return pr.Err()
}

// eventsSeen tells, for each event, whether the caller may see it now: its scopes read the
// entity's kind, and the token reaches the node the event hangs on (a workspace-scoped token
// reaches every one; an upload made without a page is seen by its own token).
func (s *Service) eventsSeen(ctx context.Context, p *quire.Principal, evs []quire.Event) ([]bool, error) {
	var reach map[string]bool
	if !p.Token.WorkspaceScoped {
		ids := make([]string, 0, len(evs))
		for _, ev := range evs {
			if ev.ReachID != "" && !slices.Contains(ids, ev.ReachID) {
				ids = append(ids, ev.ReachID)
			}
		}
		var err error
		if reach, err = s.store.ReachedAmong(ctx, p.WorkspaceID(), p.Token.ID, ids); err != nil {
			return nil, err
		}
	}
	seen := make([]bool, len(evs))
	for i, ev := range evs {
		scope := quire.PagesRead
		if ev.EntityType == quire.EventEntityDatabase || ev.EntityType == quire.EventEntityView {
			scope = quire.DatabasesRead
		}
		seen[i] = p.Has(scope) && (p.Token.WorkspaceScoped || reach[ev.ReachID] || ev.ReachID == "" && ev.BotID == p.Token.ID)
	}
	return seen, nil
}

// SweepEvents deletes the events older than retention; the server runs it hourly.
func (s *Service) SweepEvents(ctx context.Context, retention time.Duration) (int64, error) {
	return s.store.SweepEvents(ctx, time.Now().Add(-retention).UnixMilli())
}

// EventsCommitted returns a channel closed when this process next commits events.
func (s *Service) EventsCommitted() <-chan struct{} { return s.store.EventsCommitted() }
