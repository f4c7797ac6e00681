package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
)

// workspaceObject is GET /v2/workspace.
type workspaceObject struct {
	Object        string `json:"object" enum:"workspace"`
	ID            string `json:"id" format:"uuid"`
	Name          string `json:"name"`
	CreatedTime   string `json:"created_time" format:"date-time"`
	PageCount     int64  `json:"page_count" doc:"Pages not in trash that the token reaches, records included."`
	DatabaseCount int64  `json:"database_count" doc:"Databases not in trash that the token reaches."`
	MemberCount   int64  `json:"member_count" doc:"People of the workspace."`
}

type workspaceOutput struct{ Body workspaceObject }

func (s *Server) registerWorkspace() {
	register(s, huma.Operation{
		OperationID: "retrieve-workspace", Method: http.MethodGet, Path: "/v2/workspace",
		Summary: "Retrieve the workspace", Tags: []string{"Workspace"},
		Description: "The token's workspace with its totals.",
	}, route{}, s.getWorkspace)
}

// getWorkspace answers GET /v2/workspace.
func (s *Server) getWorkspace(ctx context.Context, _ *struct{}) (*workspaceOutput, error) {
	sum, err := s.svc.Workspace(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	w := sum.Workspace
	return &workspaceOutput{Body: workspaceObject{
		Object: "workspace", ID: w.ID, Name: w.Name, CreatedTime: quire.FormatMillis(w.CreatedMs),
		PageCount: sum.Counts.Pages, DatabaseCount: sum.Counts.Databases, MemberCount: sum.Counts.Members,
	}}, nil
}

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
