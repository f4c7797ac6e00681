package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
)

type sectionInput struct {
	Section string `path:"section" enum:"recent,folders,mind_maps,trash"`
	PageParams
}

func (s *Server) registerWorkspaceListings() {
	rt := route{scopes: []quire.Scope{quire.PagesRead}, workspaceScoped: true}
	s.registerSidebarSections(rt) // team, shared, private and top_level: sidebar nodes (sidebar.go)
	register(s, huma.Operation{
		OperationID: "list-workspace-section", Method: http.MethodGet, Path: "/v2/workspace/pages/{section}",
		Summary: "List a section of the workspace", Tags: []string{"Workspace"},
		Description: "Quire's own sections, as page and database objects: recent: everything by last edit; folders; " +
			"mind_maps; trash: what was put in trash, last first. (team, shared, private and top_level have routes of their own.)",
	}, rt, func(ctx context.Context, in *sectionInput) (*nodeListOutput, error) {
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

// nodeObject is a page or a database, for listings that hold both (the workspace's).
type nodeObject struct {
	page *pageObject
	db   *databaseObject
}

// MarshalJSON writes the page or the database.
func (o nodeObject) MarshalJSON() ([]byte, error) {
	if o.db != nil {
		return json.Marshal(o.db)
	}
	return json.Marshal(o.page)
}

// Schema describes a page or a database in the document.
func (nodeObject) Schema(r huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{r.Schema(reflect.TypeFor[pageObject](), true, ""),
		r.Schema(reflect.TypeFor[databaseObject](), true, "")}}
}

type nodeListOutput struct{ Body list[nodeObject] }

// newNodeObject is n as a page or a database object.
func (s *Server) newNodeObject(n *quire.Node) (nodeObject, error) {
	if n.Object == quire.ObjectDatabase {
		db, err := s.newDatabaseObject(n)
		return nodeObject{db: &db}, err
	}
	p := s.newPageObject(n)
	return nodeObject{page: &p}, nil
}
