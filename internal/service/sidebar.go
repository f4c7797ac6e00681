package service

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// SidebarNode is a node as the sidebar shows it, with whether anything is under it.
type SidebarNode struct {
	*quire.Node
	HasChildren bool
}

// The original service's sections of the workspace listing. team is the workspace's top level
// (top_level is its alias); shared and private are always empty in Quire: a workspace-scoped
// token, the only kind these routes take, reaches the whole workspace, and a bot has no private
// space (docs/api.md, "Workspace listings").
const (
	SectionTeam    = "team"
	SectionShared  = "shared"
	SectionPrivate = "private"
)

// Sidebar pages through the nodes directly under parentID in sidebar order: pages, folders,
// mind maps and databases under a page, the records of a database. With parentID "" it is the
// top of what the token reaches: the workspace's top level for a workspace-scoped token, the
// nodes granted to it otherwise.
func (s *Service) Sidebar(ctx context.Context, p *quire.Principal, parentID, startCursor string, pageSize int) (Results[SidebarNode], error) {
	switch {
	case parentID != "":
		if err := s.Reach(ctx, p, parentID, "page "+parentID); err != nil {
			return Results[SidebarNode]{}, err
		}
		return s.sidebar(ctx, p, "sidebar:"+parentID, startCursor, pageSize, func(after *store.NodeKey, limit int) ([]*quire.Node, error) {
			return s.store.ChildNodes(ctx, p.WorkspaceID(), parentID, after, limit)
		})
	case p.Token.WorkspaceScoped:
		return s.SidebarSection(ctx, p, SectionTeam, startCursor, pageSize)
	}
	return s.sidebar(ctx, p, "sidebar:granted", startCursor, pageSize, func(after *store.NodeKey, limit int) ([]*quire.Node, error) {
		return s.store.GrantedNodes(ctx, p.WorkspaceID(), p.Token.ID, after, limit)
	})
}

// SidebarSection pages through team (or top_level), shared or private.
func (s *Service) SidebarSection(ctx context.Context, p *quire.Principal, section, startCursor string, pageSize int) (Results[SidebarNode], error) {
	if err := RequireWorkspaceScoped(p); err != nil {
		return Results[SidebarNode]{}, err
	}
	if section != SectionTeam && section != "top_level" {
		// Nothing is ever in them; the page size and cursor are still checked.
		return s.sidebar(ctx, p, "section:"+section, startCursor, pageSize, func(*store.NodeKey, int) ([]*quire.Node, error) {
			return nil, nil
		})
	}
	return s.sidebar(ctx, p, "section:"+SectionTeam, startCursor, pageSize, func(after *store.NodeKey, limit int) ([]*quire.Node, error) {
		return s.store.ListNodes(ctx, store.NodeQuery{Workspace: p.WorkspaceID(), TopLevel: true, Order: store.BySidebar, After: after, Limit: limit})
	})
}

// sidebar runs one sidebar listing: the cursor of list, one more node than a page to learn
// whether another follows, each node's has_children in one statement.
func (s *Service) sidebar(ctx context.Context, p *quire.Principal, list, startCursor string, pageSize int,
	read func(after *store.NodeKey, limit int) ([]*quire.Node, error)) (Results[SidebarNode], error) {
	if err := checkPageSize(pageSize); err != nil {
		return Results[SidebarNode]{}, err
	}
	list += ":" + p.WorkspaceID()
	var after *store.NodeKey
	if startCursor != "" {
		after = &store.NodeKey{}
		if err := s.cursors.Decode(startCursor, list, after); err != nil {
			return Results[SidebarNode]{}, InvalidCursor()
		}
	}
	nodes, err := read(after, pageSize+1)
	if err != nil {
		return Results[SidebarNode]{}, err
	}
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = n.ID
	}
	kids, err := s.store.WithChildren(ctx, ids)
	if err != nil {
		return Results[SidebarNode]{}, err
	}
	items := make([]SidebarNode, len(nodes))
	for i, n := range nodes {
		items[i] = SidebarNode{Node: n, HasChildren: kids[n.ID]}
	}
	return paginate(s, list, items, pageSize, func(n SidebarNode) any { return store.BySidebar.Key(n.Node) })
}
