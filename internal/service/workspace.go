package service

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// WorkspaceSummary is GET /v2/workspace.
type WorkspaceSummary struct {
	Workspace *quire.Workspace
	Counts    store.WorkspaceCounts
}

// Workspace describes the caller's workspace. A token that is not workspace-scoped counts only
// the pages and databases it reaches, so the numbers reveal nothing beyond its grants.
func (s *Service) Workspace(ctx context.Context, p *quire.Principal) (*WorkspaceSummary, error) {
	w, err := s.store.Workspace(ctx, p.WorkspaceID())
	if err != nil {
		return nil, err
	}
	c, err := s.store.CountWorkspace(ctx, w.ID, p.Token.ID, p.Token.WorkspaceScoped)
	if err != nil {
		return nil, err
	}
	return &WorkspaceSummary{Workspace: w, Counts: c}, nil
}
