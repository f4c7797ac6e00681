package service

import (
	"context"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// Workspaces lists every workspace of the store, for `quire workspace list`.
func (s *Service) Workspaces(ctx context.Context) ([]*quire.Workspace, error) {
	return s.store.Workspaces(ctx)
}

// AllUsers lists every user of workspace ws in creation order, for `quire user list`; the
// API's GET /v2/users pages the same rows.
func (s *Service) AllUsers(ctx context.Context, ws string) ([]*quire.User, error) {
	if _, err := s.store.Workspace(ctx, ws); err != nil {
		return nil, err
	}
	var out []*quire.User
	var after *store.UserKey
	for {
		page, err := s.store.ListUsers(ctx, ws, after, 500)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < 500 {
			return out, nil
		}
		last := page[len(page)-1]
		after = &store.UserKey{CreatedMs: last.CreatedMs, ID: last.ID}
	}
}

// Tokens lists the tokens of workspace ws, or of every workspace when ws is "", revoked ones
// included; never their secrets, which are not stored.
func (s *Service) Tokens(ctx context.Context, ws string) ([]*quire.Token, error) {
	if ws != "" {
		if _, err := s.store.Workspace(ctx, ws); err != nil {
			return nil, err
		}
	}
	return s.store.Tokens(ctx, ws)
}

// Token returns token id with its grants.
func (s *Service) Token(ctx context.Context, id string) (*quire.Token, error) {
	return s.store.Token(ctx, id)
}

// RotateToken gives live token id a new secret and returns it. The old secret is refused by
// the store from the moment this writes, and by this process's cache at once; other processes
// (servers on the same store) may trust it from their caches for up to wait, so RotateToken
// returns only when that time has passed: when it returns, no server accepts the old secret.
// wait is the servers' token cache time (DefaultTokenCacheTTL); 0 returns at once.
func (s *Service) RotateToken(ctx context.Context, id string, wait time.Duration) (string, *quire.Token, error) {
	secret := newSecret()
	if err := s.store.RotateSecret(ctx, id, hashSecret(secret)); err != nil {
		return "", nil, err
	}
	s.tokens.forget(id)
	t, err := s.store.Token(ctx, id)
	if err != nil {
		return "", nil, err
	}
	// Not cut short by ctx: the rotation is written, and a caller that gave up now would lose
	// the only copy of the new secret.
	time.Sleep(wait)
	return secret, t, nil
}
