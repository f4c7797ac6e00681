package httpapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// guard wraps one route's handler in the checks the route declared: token (401), rate limit
// (429), scopes and workspace-scoped credential (403), then Idempotency-Key for writes.
func (s *Server) guard(rt route, next http.Handler) http.Handler {
	if rt.public {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte // read before the token for a search that reads both in one round trip
		var bodyErr error
		if rt.search && s.svc.JoinsSearch() {
			body, bodyErr = readBody(w, r)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		p, ctx, err := s.authenticate(r, rt, body, bodyErr == nil)
		if err != nil {
			if quire.IsCode(err, quire.CodeUnauthorized) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="quire"`)
			}
			writeError(w, r, s.log, err)
			return
		}
		setPrincipal(ctx, p)
		if s.limiter != nil && !s.limiter.admit(w, p.Token.ID) {
			s.metrics.RateLimited()
			writeError(w, r, s.log, &quire.Error{Code: quire.CodeRateLimited,
				Message: "Too many requests for this token; retry after the number of seconds in Retry-After."})
			return
		}
		for _, sc := range rt.scopes {
			if !p.Has(sc) {
				writeError(w, r, s.log, quire.Forbidden("The token lacks the scope "+string(sc)+"."))
				return
			}
		}
		if rt.workspaceScoped {
			if err := service.RequireWorkspaceScoped(p); err != nil {
				writeError(w, r, s.log, err)
				return
			}
		}
		if ctx != r.Context() { // the node read with the token rides in a context of its own
			r = r.WithContext(ctx)
		}
		write := r.Method == http.MethodPost || r.Method == http.MethodPatch || r.Method == http.MethodPut
		if !write {
			next.ServeHTTP(w, r)
			return
		}
		if body == nil && bodyErr == nil {
			body, bodyErr = readBody(w, r)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if bodyErr != nil {
			writeError(w, r, s.log, bodyErr)
			return
		}
		if key := r.Header.Get("Idempotency-Key"); key != "" {
			s.idempotent(w, r, p, key, body, next)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// authenticate checks the request's token. On a route that names the node its handler reads
// first, the node is read with the token, in one statement, into the context returned: a page
// GET makes one read where it made two (token, node) or three (token, reach, node).
//
// A search whose body was read first (read) is read with its token where the store can do both
// in one round trip (service.AuthenticateSearch).
func (s *Server) authenticate(r *http.Request, rt route, body []byte, read bool) (*quire.Principal, context.Context, error) {
	header := r.Header.Get("Authorization")
	if rt.search && read && body != nil {
		ctx, p, err := s.svc.AuthenticateSearch(r.Context(), header, body)
		return p, ctx, err
	}
	if rt.node == "" {
		p, err := s.svc.Authenticate(r.Context(), header)
		return p, r.Context(), err
	}
	if rt.children {
		q := r.URL.Query()
		ctx, p, err := s.svc.AuthenticateNodeChildren(r.Context(), header, r.PathValue(rt.node), rt.fields,
			q.Get("start_cursor"), pageSizeParam(q.Get("page_size")))
		return p, ctx, err
	}
	ctx, p, err := s.svc.AuthenticateNode(r.Context(), header, r.PathValue(rt.node), rt.fields)
	return p, ctx, err
}

// pageSizeParam is the page_size a paginated GET will be given (PageParams' default when
// absent), or 0 when it is not a number. The handler's own parameter is the one that counts:
// a listing read for another size is not used.
func pageSizeParam(v string) int {
	if v == "" {
		return defaultPageSize
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0
	}
	return n
}

// defaultPageSize is PageParams' page_size when the query has none.
const defaultPageSize = 20

// PageParams are the query parameters of every paginated GET.
type PageParams struct {
	StartCursor string `query:"start_cursor" maxLength:"2000" doc:"next_cursor of the previous page, unchanged."`
	PageSize    int    `query:"page_size" minimum:"1" maximum:"100" default:"20" doc:"Items per page, 1 to 100."` // default: defaultPageSize
}

// list is the paginated response wrapper.
type list[T any] struct {
	Object     string  `json:"object" enum:"list" doc:"Always list."`
	Results    []T     `json:"results" nullable:"false"`
	NextCursor *string `json:"next_cursor" doc:"Cursor of the next page; null on the last."`
	HasMore    bool    `json:"has_more"`
}

func newList[T any](items []T, next string) list[T] {
	l := list[T]{Object: "list", Results: items, HasMore: next != ""}
	if l.Results == nil {
		l.Results = []T{}
	}
	if next != "" {
		l.NextCursor = &next
	}
	return l
}

// listOf is the list of items, each as object writes it, with the cursor of the next page.
func listOf[T, O any](items []T, next string, object func(T) O) list[O] {
	out := make([]O, len(items))
	for i, v := range items {
		out[i] = object(v)
	}
	return newList(out, next)
}

// etag formats a resource version as a weak ETag.
func etag(version int64) string { return `W/"` + strconv.FormatInt(version, 10) + `"` }
