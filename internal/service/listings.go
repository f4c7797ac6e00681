package service

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// WorkspaceSection pages through one of Quire's own sections of the workspace's listing, as
// nodes (the original service's sections, which answer sidebar nodes, are SidebarSection).
func (s *Service) WorkspaceSection(ctx context.Context, p *quire.Principal, section, startCursor string, pageSize int) (Results[*quire.Node], error) {
	var q store.NodeQuery
	switch section {
	case "recent":
		q = store.NodeQuery{Order: store.ByRecentEdit}
	case "folders":
		q = store.NodeQuery{PageType: quire.PageTypeFolder, Order: store.ByRecentEdit}
	case "mind_maps":
		q = store.NodeQuery{PageType: quire.PageTypeMindMap, Order: store.ByRecentEdit}
	case "trash":
		q = store.NodeQuery{Trash: true, Order: store.ByRecentEdit}
	default:
		return Results[*quire.Node]{}, quire.Invalid("section", quire.ReasonInvalidValue,
			"section is one of team, shared, private, top_level, recent, folders, mind_maps, trash.")
	}
	return s.listNodes(ctx, p, "section:"+section, q, startCursor, pageSize)
}

func (s *Service) listNodes(ctx context.Context, p *quire.Principal, name string, q store.NodeQuery, startCursor string, pageSize int) (Results[*quire.Node], error) {
	if err := checkPageSize(pageSize); err != nil {
		return Results[*quire.Node]{}, err
	}
	list := name + ":" + p.WorkspaceID()
	if startCursor != "" {
		q.After = &store.NodeKey{}
		if err := s.cursors.Decode(startCursor, list, q.After); err != nil {
			return Results[*quire.Node]{}, InvalidCursor()
		}
	}
	q.Workspace, q.Limit = p.WorkspaceID(), pageSize+1
	if !p.Token.WorkspaceScoped {
		q.ReachOf = p.Token.ID
	}
	nodes, err := s.store.ListNodes(ctx, q)
	if err != nil {
		return Results[*quire.Node]{}, err
	}
	if err := s.RenderRecords(ctx, nodes, nil); err != nil {
		return Results[*quire.Node]{}, err
	}
	return paginate(s, list, nodes, pageSize, func(n *quire.Node) any { return q.Order.Key(n) })
}
