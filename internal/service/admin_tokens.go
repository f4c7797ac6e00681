package service

import (
	"context"

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

// RotateToken gives live token id a new secret and returns it. Every server refuses the old
// secret from the moment this commits: no server keeps a token's validity in memory, each
// request asks the store.
func (s *Service) RotateToken(ctx context.Context, id string) (string, *quire.Token, error) {
	secret := newSecret()
	if err := s.store.RotateSecret(ctx, id, hashSecret(secret)); err != nil {
		return "", nil, err
	}
	t, err := s.store.Token(ctx, id)
	if err != nil {
		return "", nil, err
	}
	return secret, t, nil
}
