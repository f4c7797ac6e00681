package service

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// User returns a person of the caller's workspace, or not_found.
func (s *Service) User(ctx context.Context, p *quire.Principal, id string) (*quire.User, error) {
	if !quire.ValidID(id) {
		return nil, quire.NotFound("user " + id)
	}
	u, err := s.store.User(ctx, p.WorkspaceID(), id)
	if err != nil {
		return nil, quire.NotFound("user " + id)
	}
	return u, nil
}

// ListUsers pages through the people of the caller's workspace (workspace-scoped tokens only).
func (s *Service) ListUsers(ctx context.Context, p *quire.Principal, startCursor string, pageSize int) (Results[*quire.User], error) {
	if err := RequireWorkspaceScoped(p); err != nil {
		return Results[*quire.User]{}, err
	}
	if err := checkPageSize(pageSize); err != nil {
		return Results[*quire.User]{}, err
	}
	list := "users:" + p.WorkspaceID()
	var after *store.UserKey
	if startCursor != "" {
		after = &store.UserKey{}
		if err := s.cursors.Decode(startCursor, list, after); err != nil {
			return Results[*quire.User]{}, InvalidCursor()
		}
	}
	users, err := s.store.ListUsers(ctx, p.WorkspaceID(), after, pageSize+1)
	if err != nil {
		return Results[*quire.User]{}, err
	}
	return paginate(s, list, users, pageSize, func(u *quire.User) any {
		return store.UserKey{CreatedMs: u.CreatedMs, ID: u.ID}
	})
}
