package service

import (
	"context"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
)

type searchReadKey struct{}

// searchRead is the first page of a search read with its token (AuthenticateSearch), for the
// request r of token tokenID in workspace ws.
type searchRead struct {
	tokenID, ws string
	r           SearchRequest
	res         []search.Result
}

// JoinsSearch reports whether AuthenticateSearch can save a round trip: on PostgreSQL, where
// the token's read and the search's statement go together. Elsewhere the guard need not read
// the body before the token.
func (s *Service) JoinsSearch() bool { return s.store.Engine() == store.Postgres }

// AuthenticateSearch is Authenticate for POST /v2/search with its body: the token and, where
// the store can (store.AuthenticateSearch), the first page of the search in the same round
// trip, carried by the returned context for Search to take instead of reading it again. A body
// that does not decode, or asks for a later page, is Authenticate alone (Search answers it as
// it always did). Nothing outlives the request.
func (s *Service) AuthenticateSearch(ctx context.Context, header string, body []byte) (context.Context, *quire.Principal, error) {
	hash, ok := bearerHash(header)
	if !ok {
		return ctx, nil, errUnauthorized
	}
	m, err := jsonbody.Parse(body)
	if err != nil {
		p, err := unauthorizedIf(s.store.Authenticate(ctx, hash))
		return ctx, p, err
	}
	r, err := DecodeSearch(m)
	if err != nil || r.StartCursor != "" || checkPageSize(r.PageSize) != nil {
		p, err := unauthorizedIf(s.store.Authenticate(ctx, hash))
		return ctx, p, err
	}
	p, res, answered, err := s.store.AuthenticateSearch(ctx, hash, func(p *quire.Principal) search.Query { return searchQuery(p, r) })
	if p, err = unauthorizedIf(p, err); err != nil {
		return ctx, nil, err
	}
	if !answered {
		return ctx, p, nil
	}
	return context.WithValue(ctx, searchReadKey{}, &searchRead{tokenID: p.Token.ID, ws: p.WorkspaceID(), r: r, res: res}), p, nil
}

// searchedWithToken is the first page AuthenticateSearch read for p's token and request r in
// this request, if it did.
func searchedWithToken(ctx context.Context, p *quire.Principal, r SearchRequest) ([]search.Result, bool) {
	sr, ok := ctx.Value(searchReadKey{}).(*searchRead)
	if !ok || sr.tokenID != p.Token.ID || sr.ws != p.WorkspaceID() || sr.r != r {
		return nil, false
	}
	return sr.res, true
}
