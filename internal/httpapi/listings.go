package httpapi

import (
	"context"
	"net/http"

	"github.com/quire-dev/quire/internal/quire"
)

type sectionInput struct {
	Section string `path:"section" enum:"recent,folders,mind_maps,trash"`
	PageParams
}

func (s *Server) registerWorkspaceListings() {
	rt := route{scopes: []quire.Scope{quire.PagesRead}, workspaceScoped: true}
	s.registerSidebarSections(rt) // team, shared, private and top_level: sidebar nodes (sidebar.go)
	register(s, op("list-workspace-section", http.MethodGet, "/v2/workspace/pages/{section}", "Workspace",
		"List a section of the workspace",
		"Quire's own sections, as page and database objects: recent: everything by last edit; folders; "+
			"mind_maps; trash: what was put in trash, last first. (team, shared, private and top_level have routes of their own.)"), rt, func(ctx context.Context, in *sectionInput) (*nodeListOutput, error) {
		return s.section(ctx, in.Section, in.PageParams)
	})
}

func (s *Server) section(ctx context.Context, section string, pp PageParams) (*nodeListOutput, error) {
	pg, err := s.svc.WorkspaceSection(ctx, principal(ctx), section, pp.StartCursor, pp.PageSize)
	if err != nil {
		return nil, err
	}
	items := make([]nodeObject, len(pg.Items))
	for i, n := range pg.Items {
		if items[i], err = s.newNodeObject(n); err != nil {
			return nil, err
		}
	}
	return &nodeListOutput{Body: newList(items, pg.NextCursor)}, nil
}

// nodeObject is a page or a database, for listings that hold both (the workspace's). A struct
// of its own, not an alias, so that the document names it NodeObject.
type nodeObject struct {
	pageOrDatabase[pageObject, databaseObject]
}

type nodeListOutput struct{ Body list[nodeObject] }

// newNodeObject is n as a page or a database object.
func (s *Server) newNodeObject(n *quire.Node) (nodeObject, error) {
	if n.Object == quire.ObjectDatabase {
		db, err := s.newDatabaseObject(n)
		return nodeObject{pageOrDatabase[pageObject, databaseObject]{db: &db}}, err
	}
	p := s.newPageObject(n)
	return nodeObject{pageOrDatabase[pageObject, databaseObject]{page: &p}}, nil
}
