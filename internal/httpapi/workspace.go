package httpapi

import (
	"context"
	"net/http"

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
	register(s, op("retrieve-workspace", http.MethodGet, "/v2/workspace", "Workspace",
		"Retrieve the workspace",
		"The token's workspace with its totals."), route{}, s.getWorkspace)
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
