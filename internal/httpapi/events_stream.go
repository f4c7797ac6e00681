package httpapi

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// How a stream finds new events: at once for those this process commits (the store rings a
// bell), by polling for those of other servers sharing the store, which must reach the stream
// within a second.
var (
	eventPoll      = 200 * time.Millisecond
	eventHeartbeat = 15 * time.Second
)

type streamEventsInput struct {
	StartCursor string `query:"start_cursor" maxLength:"2000" doc:"Resume after this cursor (a next_cursor of GET /v2/events, or an id of this stream)."`
	LastEventID string `header:"Last-Event-ID" maxLength:"2000" doc:"Sent by an EventSource that reconnects: resume after this event. Wins over start_cursor."`
	EventParams
}

type eventStream struct {
	Body func(huma.Context)
}

// streams ends every open stream when the server shuts down: http.Server.Shutdown waits for
// connections to go idle, which a stream never does.
type streams struct {
	once sync.Once
	done chan struct{}
}

// StopStreams ends the open event streams; serve calls it when shutting down.
func (s *Server) StopStreams() { s.streams.once.Do(func() { close(s.streams.done) }) }

// streamEvents answers GET /v2/events/stream. The first page is read before the status is
// sent, so that a bad cursor or filter answers 400 like GET /v2/events.
func (s *Server) streamEvents(ctx context.Context, in *streamEventsInput) (*eventStream, error) {
	p := principal(ctx)
	cursor := cmp.Or(in.LastEventID, in.StartCursor)
	if cursor == "" {
		var err error
		if cursor, err = s.svc.EventsNow(ctx, p); err != nil {
			return nil, err
		}
	}
	bell := s.svc.EventsCommitted() // before the read: a commit after it rings
	page, err := s.svc.Events(ctx, p, in.EventParams.query(cursor, 100))
	if err != nil {
		return nil, err
	}
	return &eventStream{Body: func(hctx huma.Context) {
		hctx.SetHeader("Content-Type", "text/event-stream")
		hctx.SetHeader("Cache-Control", "no-cache")
		hctx.SetHeader("X-Accel-Buffering", "no") // nginx would hold the stream back
		hctx.SetStatus(http.StatusOK)
		_, w := humago.Unwrap(hctx)
		st := &sse{w: bufio.NewWriter(w), rc: http.NewResponseController(w)}
		// The server's read timeout covers reading the request, which is over; past it the
		// connection would be cut under a stream that is still wanted.
		_ = st.rc.SetReadDeadline(time.Time{})
		st.w.WriteString("retry: 1000\n\n")
		if err := s.pumpEvents(ctx, st, p, in.EventParams, page, bell); err != nil && ctx.Err() == nil {
			s.log.LogAttrs(ctx, slog.LevelWarn, "event stream ended", slog.String("request_id", requestID(ctx)), slog.String("error", err.Error()))
		}
	}}, nil
}

// pumpEvents writes page and every later one until the client goes, the server stops or a
// write fails.
func (s *Server) pumpEvents(ctx context.Context, st *sse, p *quire.Principal, f EventParams, page *service.EventPage, bell <-chan struct{}) error {
	heartbeat := time.NewTicker(eventHeartbeat)
	defer heartbeat.Stop()
	poll := time.NewTimer(eventPoll)
	defer poll.Stop()
	for {
		for _, ev := range page.Events {
			if err := st.event(s.svc, p, ev); err != nil {
				return err
			}
		}
		if err := st.flush(); err != nil {
			return err
		}
		if !page.HasMore {
			if stop, err := s.awaitEvents(ctx, st, bell, poll, heartbeat); stop || err != nil {
				return err
			}
		}
		poll.Reset(eventPoll)
		bell = s.svc.EventsCommitted()
		var err error
		if page, err = s.svc.Events(ctx, p, f.query(page.Next, 100)); err != nil {
			return err
		}
	}
}

// awaitEvents waits until new events may be there (the bell rang, or it is time to poll),
// writing heartbeats meanwhile; stop is true when the client went or the server stops.
func (s *Server) awaitEvents(ctx context.Context, st *sse, bell <-chan struct{}, poll *time.Timer, heartbeat *time.Ticker) (stop bool, err error) {
	for {
		select {
		case <-ctx.Done():
			return true, nil
		case <-s.streams.done:
			return true, nil
		case <-heartbeat.C:
			st.w.WriteString(": heartbeat\n\n")
			if err := st.flush(); err != nil {
				return true, err
			}
		case <-bell:
			return false, nil
		case <-poll.C:
			return false, nil
		}
	}
}

// sse writes Server-Sent Events.
type sse struct {
	w  *bufio.Writer
	rc *http.ResponseController
}

func (st *sse) event(svc *service.Service, p *quire.Principal, ev quire.Event) error {
	id, err := svc.EventCursor(p, ev.Seq)
	if err != nil {
		return err
	}
	data, err := json.Marshal(newEventObject(ev))
	if err != nil {
		return err
	}
	st.w.WriteString("id: " + id + "\nevent: " + ev.Type + "\ndata: ")
	st.w.Write(data) // JSON has no raw newline, so one data line holds it
	_, err = st.w.WriteString("\n\n")
	return err
}

func (st *sse) flush() error {
	if err := st.w.Flush(); err != nil {
		return err
	}
	return st.rc.Flush()
}
