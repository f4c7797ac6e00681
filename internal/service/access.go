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
	scheme, secret, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(secret, TokenPrefix) || len(secret) > 200 {
		return nil, errUnauthorized
	}
	p, err := s.store.Authenticate(ctx, hashSecret(secret))
	if quire.IsCode(err, quire.CodeNotFound) {
		return nil, errUnauthorized
	}
	if err != nil {
		return nil, err
	}
	return p, nil
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
