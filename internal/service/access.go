package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// TokenPrefix starts every secret, so that a leaked one is easy to recognise and scan for.
const TokenPrefix = "quire_"

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

var errUnauthorized = &quire.Error{Code: quire.CodeUnauthorized,
	Message: "The bearer token is missing, malformed, unknown or revoked."}

// Authenticate returns the principal of an Authorization header value ("Bearer <secret>"),
// or unauthorized. It asks the store every time, one read on the unique index of secret hashes:
// a token revoked or rotated through any server sharing the store is refused on the very next
// request, here too. (A cache of live tokens saved that read but let a revoked secret in for
// its lifetime on every other server; the read costs less than the request's other work.)
func (s *Service) Authenticate(ctx context.Context, header string) (*quire.Principal, error) {
	hash, ok := bearerHash(header)
	if !ok {
		return nil, errUnauthorized
	}
	return unauthorizedIf(s.store.Authenticate(ctx, hash))
}

// bearerHash is the hash of the secret of an Authorization header value, or false when the
// value is not a bearer token of ours.
func bearerHash(header string) (string, bool) {
	scheme, secret, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(secret, TokenPrefix) || len(secret) > 200 {
		return "", false
	}
	return hashSecret(secret), true
}

// unauthorizedIf turns the store's not_found for a secret into unauthorized.
func unauthorizedIf(p *quire.Principal, err error) (*quire.Principal, error) {
	if quire.IsCode(err, quire.CodeNotFound) {
		return nil, errUnauthorized
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// nodeRead is the node a request names, read with its token (AuthenticateNode); node is nil
// when the token does not reach it.
type nodeRead struct {
	tokenID, id string
	node        *quire.Node
	fields      NodeFields
	listing     *listing // the node's children, read in the same round trip (AuthenticateNodeChildren)
}

// listing is a page of a node's children read with the token: the blocks, at most limit of
// them after the key after (nil: from the first).
type listing struct {
	after  *store.ChildKey
	limit  int
	blocks []*quire.Block
}

// children is the listing read with the token when it is the one asked for (the same key
// and limit), else false.
func (r *nodeRead) children(after *store.ChildKey, limit int) ([]*quire.Block, bool) {
	l := r.listing
	if l == nil || l.limit != limit || (l.after == nil) != (after == nil) || l.after != nil && *l.after != *after {
		return nil, false
	}
	return l.blocks, true
}

// NodeFields is how much of the node AuthenticateNode reads: AllFields, or PageFields, enough
// for Page (what a page's answer shows) and for nothing else.
type NodeFields = store.NodeFields

// The parts of a node AuthenticateNode may read.
var (
	AllFields  = store.AllFields
	PageFields = store.PageFields
)

// serves tells whether the read holds what readNode's caller for kind needs: a page read is
// only for Page (the one caller of readNode for kind "page").
func (r *nodeRead) serves(kind string) bool {
	return r.fields == AllFields || r.fields == PageFields && kind == "page"
}

type nodeReadKey struct{}

// AuthenticateNode is Authenticate for a request whose handler reads node id first (GET
// /v2/pages/{page_id}): the token, the reach check and the node are one statement, and the
// returned context carries the node for that read (readNode), so the request makes one read
// instead of two or three; fields is how much of it (PageFields for GET /v2/pages/{page_id}).
// The node is read within this request, in the same statement as the token; nothing outlives
// the request.
func (s *Service) AuthenticateNode(ctx context.Context, header, id string, fields NodeFields) (context.Context, *quire.Principal, error) {
	hash, ok := bearerHash(header)
	if !ok {
		return ctx, nil, errUnauthorized
	}
	if !quire.ValidID(id) { // not_found or a 400 later: not worth a joined read
		p, err := unauthorizedIf(s.store.Authenticate(ctx, hash))
		return ctx, p, err
	}
	p, n, err := s.store.AuthenticateNode(ctx, hash, id, fields)
	if p, err = unauthorizedIf(p, err); err != nil {
		return ctx, nil, err
	}
	return context.WithValue(ctx, nodeReadKey{}, &nodeRead{tokenID: p.Token.ID, id: id, node: n, fields: fields}), p, nil
}

// AuthenticateNodeChildren is AuthenticateNode for GET /v2/blocks/{block_id}/children: with
// the token and the node it reads, in the same round trip where the store can (PostgreSQL),
// the page of the node's children that startCursor and pageSize ask for, which Children then
// takes instead of reading it again. pageSize 0, or a cursor that does not decode, asks for
// no listing: Children answers those as it always did. Nothing outlives the request.
func (s *Service) AuthenticateNodeChildren(ctx context.Context, header, id string, fields NodeFields, startCursor string, pageSize int) (context.Context, *quire.Principal, error) {
	hash, ok := bearerHash(header)
	if !ok {
		return ctx, nil, errUnauthorized
	}
	var after *store.ChildKey
	if startCursor != "" {
		after = &store.ChildKey{}
		if s.cursors.Decode(startCursor, childrenList(id), after) != nil {
			pageSize = 0
		}
	}
	if !quire.ValidID(id) || checkPageSize(pageSize) != nil {
		return s.AuthenticateNode(ctx, header, id, fields)
	}
	p, n, bs, listed, err := s.store.AuthenticateNodeChildren(ctx, hash, id, fields, after, pageSize+1)
	if p, err = unauthorizedIf(p, err); err != nil {
		return ctx, nil, err
	}
	r := &nodeRead{tokenID: p.Token.ID, id: id, node: n, fields: fields}
	if listed {
		r.listing = &listing{after: after, limit: pageSize + 1, blocks: bs}
	}
	return context.WithValue(ctx, nodeReadKey{}, r), p, nil
}

// readWithToken is the read AuthenticateNode made of node id for p's token in this request.
func readWithToken(ctx context.Context, p *quire.Principal, id string) (*nodeRead, bool) {
	r, ok := ctx.Value(nodeReadKey{}).(*nodeRead)
	if !ok || r.id != id || r.tokenID != p.Token.ID {
		return nil, false
	}
	return r, true
}

// Reach is the access check every handler makes before touching a page or database (or
// something beneath one): nil when id exists in the caller's workspace and is within the
// token's reach, else not_found, which never tells the two apart.
func (s *Service) Reach(ctx context.Context, p *quire.Principal, id, what string) error {
	if !quire.ValidID(id) {
		return quire.NotFound(what)
	}
	var ok bool
	var err error
	if p.Token.WorkspaceScoped {
		ok, err = s.store.NodeInWorkspace(ctx, p.WorkspaceID(), id)
	} else {
		ok, err = s.store.Reaches(ctx, p.WorkspaceID(), p.Token.ID, id)
	}
	if err != nil {
		return err
	}
	if !ok {
		return quire.NotFound(what)
	}
	return nil
}

// reachTx is Reach inside a write transaction. A transaction never waits for a second
// connection while it holds its locks: with every pooled connection taken by requests waiting
// for those locks, it would wait for ever.
func (s *Service) reachTx(ctx context.Context, tx *store.Tx, p *quire.Principal, id, what string) error {
	if !quire.ValidID(id) {
		return quire.NotFound(what)
	}
	var ok bool
	var err error
	if p.Token.WorkspaceScoped {
		ok, err = tx.NodeInWorkspace(ctx, p.WorkspaceID(), id)
	} else {
		ok, err = tx.Reaches(ctx, p.WorkspaceID(), p.Token.ID, id)
	}
	if err != nil {
		return err
	}
	if !ok {
		return quire.NotFound(what)
	}
	return nil
}

// RequireWorkspaceScoped answers forbidden for a token that reaches only granted content.
func RequireWorkspaceScoped(p *quire.Principal) error {
	if !p.Token.WorkspaceScoped {
		return quire.Forbidden("This endpoint needs a workspace-scoped token.")
	}
	return nil
}
