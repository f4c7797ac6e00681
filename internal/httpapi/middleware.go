package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/quire-dev/quire/internal/quire"
)

// statusWriter remembers the status and size of an answer for the request log, and holds the
// status back until the body's first byte (or a flush, or the handler's end): huma sends the
// status before it marshals the body, and the JSON formats (jsonBodies) can then still give a
// body they write in one piece its Content-Length, which saves net/http a chunked write.
type statusWriter struct {
	http.ResponseWriter
	status int  // the answer's status; 0 while none is set
	held   bool // status is set but not yet passed on
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	switch {
	case code < 200: // informational (103 Early Hints): goes out at once, the answer follows
		w.ResponseWriter.WriteHeader(code)
	case w.status == 0:
		w.status, w.held = code, true
	case !w.held:
		w.ResponseWriter.WriteHeader(code) // net/http reports the superfluous call
	} // a second status while the first is held: the first stands, as net/http would have it
}

// sendStatus passes a held status on.
func (w *statusWriter) sendStatus() {
	if w.held {
		w.held = false
		w.ResponseWriter.WriteHeader(w.status)
	}
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.sendStatus()
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// FlushError sends the held status with what is written so far (a stream's first events):
// http.ResponseController finds it before it unwraps the writer.
func (w *statusWriter) FlushError() error {
	w.sendStatus()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush is FlushError for callers that look for an http.Flusher.
func (w *statusWriter) Flush() { _ = w.FlushError() }

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// reqState is what the middleware keeps of one request, in one allocation where it took four:
// the writer, what the access line learns while the request runs, and the request's context
// carrying the latter to the handlers.
type reqState struct {
	statusWriter
	info  reqInfo
	ctx   reqContext
	idHdr [1]string // the X-Request-Id header's value slice
}

// reqContext is a request's context with its reqInfo as the value of keyRequestID, as
// context.WithValue would make it.
type reqContext struct {
	context.Context
	info *reqInfo
}

func (c *reqContext) Value(key any) any {
	if key == keyRequestID {
		return c.info
	}
	return c.Context.Value(key)
}

// logRequests gives every request its id (X-Request-Id, and request_id in error bodies), turns a
// panic into a 500 internal_error, and writes one structured log line per request. It counts
// the request in flight on Config.Busy, so background work steps aside, unless its path ends in
// /stream: a long-lived stream (server-sent events) would hold the background work off for as
// long as a client listens.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if !strings.HasSuffix(r.URL.Path, "/stream") {
			s.cfg.Busy.Enter()
			defer s.cfg.Busy.Leave()
		}
		st := &reqState{statusWriter: statusWriter{ResponseWriter: w}, info: reqInfo{id: newRequestID()}}
		st.ctx = reqContext{Context: r.Context(), info: &st.info}
		ri, sw := &st.info, &st.statusWriter
		st.idHdr[0] = ri.id
		w.Header()["X-Request-Id"] = st.idHdr[:] // as Header.Set, the key canonical already
		r = r.WithContext(&st.ctx)
		// curl -d sends form encoding by default; every body we take is JSON, so read it as such.
		if r.Header.Get("Content-Type") == "application/x-www-form-urlencoded" {
			r.Header.Set("Content-Type", "application/json")
		}
		canonicalIDs(r)
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.LogAttrs(r.Context(), slog.LevelError, "panic", slog.String("request_id", ri.id),
					slog.String("panic", fmt.Sprint(p)), slog.String("stack", string(debug.Stack())))
				if sw.status == 0 {
					writeError(sw, r, s.log, fmt.Errorf("panic: %v", p))
				}
			}
			sw.sendStatus() // a status without a body (HEAD, 204, 304)
			elapsed := time.Since(start)
			if sw.status == 0 { // nothing written: net/http answers 200 with an empty body
				sw.status = http.StatusOK
			}
			s.metrics.ObserveRequest(s.routeLabel(r.Pattern), sw.status, elapsed)
			s.logAccess(r, ri, sw, elapsed)
		}()
		next.ServeHTTP(sw, r)
	})
}

// logAccess writes a request's line to the access log (Config.AccessLog): at ERROR for a 5xx
// answer, DEBUG for a probe (/healthz and /readyz are asked every few seconds by every load
// balancer and would drown the rest at INFO), INFO otherwise.
func (s *Server) logAccess(r *http.Request, ri *reqInfo, sw *statusWriter, elapsed time.Duration) {
	level := slog.LevelInfo
	switch {
	case sw.status >= 500:
		level = slog.LevelError
	case r.Pattern == "GET /healthz" || r.Pattern == "GET /readyz":
		level = slog.LevelDebug
	}
	ctx := r.Context()
	if !s.access.Enabled(ctx, level) {
		return
	}
	route := r.Pattern
	if sw.status == http.StatusMethodNotAllowed {
		// No route matched, so no guard ran: name the route the path belongs to, and the token
		// that called it, so the line says who used which route wrongly.
		_, route = s.allowed(r)
		if p, err := s.svc.Authenticate(ctx, r.Header.Get("Authorization")); err == nil {
			ri.tokenID = p.Token.ID
		}
	}
	l := accessLine{requestID: ri.id, method: r.Method, path: r.URL.Path, route: route, status: sw.status,
		bytes: sw.bytes, elapsed: elapsed, tokenID: ri.tokenID}
	if h, ok := s.access.Handler().(*accessHandler); ok {
		h.writeLine(time.Now(), level, &l)
		return
	}
	// Handed to the handler as a record without a program counter: Logger.LogAttrs walks the
	// stack for one on every line (a quarter of the line's cost under load), and the access
	// line's source would only ever name this function.
	_ = s.access.Handler().Handle(ctx, l.record(time.Now(), level)) // as LogAttrs, a handler's write error is dropped
}

// routeLabel is the registered pattern that matched a request, or "" for the catch-all "/"
// (unknownRoute). The ServeMux reports the pattern a redirect of an unclean path leads to, and
// for a CONNECT request may report the raw path it redirects to: only known patterns pass.
func (s *Server) routeLabel(pattern string) string {
	if s.labels[pattern] {
		return pattern
	}
	return ""
}

// unknownRoute answers every request no operation matched: 405 with Allow when the path exists
// under other methods, else 404, both in the error body.
func (s *Server) unknownRoute(w http.ResponseWriter, r *http.Request) {
	if allowed, _ := s.allowed(r); len(allowed) > 0 {
		for _, m := range allowed {
			w.Header().Add("Allow", m)
		}
		writeError(w, r, s.log, &quire.Error{Code: quire.CodeMethodNotAllowed,
			Message: r.Method + " is not allowed on " + r.URL.Path + "."})
		return
	}
	writeError(w, r, s.log, &quire.Error{Code: quire.CodeNotFound, Message: "There is no route " + r.URL.Path + "."})
}

// allowed lists the methods that have a route for r's path, and that route's path pattern
// ("/v2/pages/{page_id}"; "" when none has).
func (s *Server) allowed(r *http.Request) (methods []string, route string) {
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			methods = append(methods, m)
			_, route, _ = strings.Cut(pattern, " ")
		}
	}
	return methods, route
}
