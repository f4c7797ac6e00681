package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// pageNodeObject is a node as the sidebar shows it: the light shape the original service's
// listings answer, which its exporters walk (title as a plain string, has_children).
type pageNodeObject struct {
	Object         string         `json:"object" enum:"page_node" doc:"Always page_node."`
	ID             string         `json:"id" format:"uuid"`
	Type           string         `json:"type" enum:"page,database" doc:"page for a page, folder, mind map or record; database for a database."`
	Title          string         `json:"title" doc:"The title as plain text."`
	PageType       string         `json:"page_type" enum:"page,folder,mind_map,database"`
	HasChildren    bool           `json:"has_children" doc:"Whether anything is under it that is not in trash: sub-pages, databases, records."`
	InTrash        bool           `json:"in_trash"`
	Parent         parentObject   `json:"parent"`
	Icon           fileObjectJSON `json:"icon"`
	URL            string         `json:"url" format:"uri"`
	CreatedTime    string         `json:"created_time" format:"date-time"`
	LastEditedTime string         `json:"last_edited_time" format:"date-time"`
}

func (s *Server) newPageNodeObject(n service.SidebarNode) pageNodeObject {
	return pageNodeObject{
		Object: "page_node", ID: n.ID, Type: n.Object, Title: n.TitlePlain, PageType: n.PageType,
		HasChildren: n.HasChildren, InTrash: n.InTrash, Parent: newParent(n.ParentType, n.ParentID),
		Icon: fileObjectJSON(n.Icon), URL: s.svc.PageURL(n.ID),
		CreatedTime: quire.FormatMillis(n.CreatedMs), LastEditedTime: quire.FormatMillis(n.EditedMs),
	}
}

func (s *Server) pageNodeList(pg service.Results[service.SidebarNode]) list[pageNodeObject] {
	items := make([]pageNodeObject, len(pg.Items))
	for i, n := range pg.Items {
		items[i] = s.newPageNodeObject(n)
	}
	return newList(items, pg.NextCursor)
}

type pageNodeListOutput struct{ Body list[pageNodeObject] }

type listPagesInput struct {
	ParentID string `query:"parent_id" doc:"List what is directly under this page or database (a database's records). Left out: the top of what the token reaches."`
	PageParams
}

// listPages answers GET /v2/pages.
func (s *Server) listPages(ctx context.Context, in *listPagesInput) (*pageNodeListOutput, error) {
	if in.ParentID != "" && !quire.ValidID(in.ParentID) {
		return nil, quire.Invalid("parent_id", quire.ReasonInvalidValue, "parent_id must be a UUID.")
	}
	pg, err := s.svc.Sidebar(ctx, principal(ctx), in.ParentID, in.StartCursor, in.PageSize)
	if err != nil {
		return nil, err
	}
	return &pageNodeListOutput{Body: s.pageNodeList(pg)}, nil
}

// workspacePagesObject is GET /v2/workspace/pages: the original service's three sections.
type workspacePagesObject struct {
	Object  string               `json:"object" enum:"workspace_pages"`
	Team    list[pageNodeObject] `json:"team" doc:"The workspace's top level in sidebar order; walk it further with /v2/workspace/pages/team."`
	Shared  list[pageNodeObject] `json:"shared" doc:"Always empty: a workspace-scoped token reaches the whole workspace."`
	Private list[pageNodeObject] `json:"private" doc:"Always empty: a bot has no private space."`
}

type workspacePagesInput struct {
	StartCursor string `query:"start_cursor" maxLength:"2000" doc:"next_cursor of team, unchanged: continues team, the one section that can have more."`
	PageSize    int    `query:"page_size" minimum:"1" maximum:"100" default:"20" doc:"Items per section, 1 to 100."`
}

type sidebarSectionInput struct{ PageParams }

func (s *Server) registerSidebarSections(rt route) {
	register(s, op("list-workspace-pages", http.MethodGet, "/v2/workspace/pages", "Workspace",
		"List the workspace's sections",
		"The original service's sections team, shared and private, each a list of sidebar nodes. "+
			"A token that is not workspace-scoped answers 403."), rt, func(ctx context.Context, in *workspacePagesInput) (*struct{ Body workspacePagesObject }, error) {
		out := workspacePagesObject{Object: "workspace_pages"}
		for _, sec := range []struct {
			name, cursor string
			dst          *list[pageNodeObject]
		}{{service.SectionTeam, in.StartCursor, &out.Team}, {service.SectionShared, "", &out.Shared}, {service.SectionPrivate, "", &out.Private}} {
			pg, err := s.svc.SidebarSection(ctx, principal(ctx), sec.name, sec.cursor, in.PageSize)
			if err != nil {
				return nil, err
			}
			*sec.dst = s.pageNodeList(pg)
		}
		return &struct{ Body workspacePagesObject }{out}, nil
	})
	for _, sec := range []string{service.SectionTeam, "top_level", service.SectionShared, service.SectionPrivate} {
		register(s, huma.Operation{
			OperationID: "list-workspace-" + sec, Method: http.MethodGet, Path: "/v2/workspace/pages/" + sec,
			Summary: "List the " + sec + " section", Tags: []string{"Workspace"},
			Description: sectionDocs[sec],
		}, rt, func(ctx context.Context, in *sidebarSectionInput) (*pageNodeListOutput, error) {
			pg, err := s.svc.SidebarSection(ctx, principal(ctx), sec, in.StartCursor, in.PageSize)
			if err != nil {
				return nil, err
			}
			return &pageNodeListOutput{Body: s.pageNodeList(pg)}, nil
		})
	}
}

var sectionDocs = map[string]string{
	service.SectionTeam:    "The workspace's top level in sidebar order, as sidebar nodes.",
	"top_level":            "The same as team.",
	service.SectionShared:  "Always empty in Quire: a workspace-scoped token reaches the whole workspace.",
	service.SectionPrivate: "Always empty in Quire: a bot has no private space.",
}
