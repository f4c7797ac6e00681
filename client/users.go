package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"
	"time"
)

// UsersService reads the workspace's people and the token's bot user.
type UsersService struct{ c *Client }

// User is a person of the workspace.
type User struct {
	Object    string  `json:"object"`
	ID        string  `json:"id"`
	Type      string  `json:"type"`
	Name      string  `json:"name"`
	AvatarURL string  `json:"avatar_url"`
	Person    *Person `json:"person,omitempty"`
}

// Person holds a person's email, present with the users.email.read scope.
type Person struct {
	Email string `json:"email"`
}

// BotUser is the token itself, as GET /v2/users/me answers it.
type BotUser struct {
	Object          string          `json:"object"`
	ID              string          `json:"id"` // the token's id
	Name            string          `json:"name"`
	Type            string          `json:"type"`
	WorkspaceID     string          `json:"workspace_id"`
	WorkspaceName   string          `json:"workspace_name"`
	Owner           UserRef         `json:"owner"`
	Capabilities    map[string]bool `json:"capabilities"` // scope → granted
	IntegrationID   string          `json:"integration_id"`
	WorkspaceScoped bool            `json:"workspace_scoped"`
}

// Me answers the token's bot user and its capabilities.
func (s *UsersService) Me(ctx context.Context) (*BotUser, error) {
	var out BotUser
	_, err := s.c.do(ctx, request{method: "GET", path: "/v2/users/me"}, &out)
	return ret(&out, err)
}

// Get answers the person id.
func (s *UsersService) Get(ctx context.Context, id string) (*User, error) {
	var out User
	_, err := s.c.do(ctx, request{method: "GET", path: "/v2/users/" + pathID(id)}, &out)
	return ret(&out, err)
}

// List yields the people of the workspace, oldest first.
func (s *UsersService) List(ctx context.Context, opts ListOptions) iter.Seq2[*User, error] {
	return paginate(ctx, opts.StartCursor, func(ctx context.Context, cursor string) (*List[*User], error) {
		var out List[*User]
		_, err := s.c.do(ctx, request{method: "GET", path: "/v2/users", query: listQuery(opts.PageSize, cursor)}, &out)
		return ret(&out, err)
	})
}

// WorkspaceService reads the workspace and its sidebar sections.
type WorkspaceService struct{ c *Client }

// Workspace is the token's workspace with its totals.
type Workspace struct {
	Object        string    `json:"object"`
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	CreatedTime   time.Time `json:"created_time"`
	PageCount     int       `json:"page_count"`
	DatabaseCount int       `json:"database_count"`
	MemberCount   int       `json:"member_count"`
}

// Get answers the workspace.
func (s *WorkspaceService) Get(ctx context.Context) (*Workspace, error) {
	var out Workspace
	_, err := s.c.do(ctx, request{method: "GET", path: "/v2/workspace"}, &out)
	return ret(&out, err)
}

// WorkspacePages is the sidebar's three sections, each one page of nodes.
type WorkspacePages struct {
	Object  string          `json:"object"`
	Team    List[*PageNode] `json:"team"`
	Shared  List[*PageNode] `json:"shared"`
	Private List[*PageNode] `json:"private"`
}

// Pages answers the first page of each sidebar section (workspace-scoped tokens only).
func (s *WorkspaceService) Pages(ctx context.Context, opts ListOptions) (*WorkspacePages, error) {
	var out WorkspacePages
	_, err := s.c.do(ctx, request{method: "GET", path: "/v2/workspace/pages", query: listQuery(opts.PageSize, opts.StartCursor)}, &out)
	return ret(&out, err)
}

// Section yields the items of one section: team, shared, private and top_level answer
// sidebar nodes (Result.Node); recent, folders, mind_maps and trash answer pages and
// databases (Result.Page, Result.Database).
func (s *WorkspaceService) Section(ctx context.Context, section string, opts ListOptions) iter.Seq2[*Result, error] {
	return paginate(ctx, opts.StartCursor, func(ctx context.Context, cursor string) (*List[*Result], error) {
		var out List[*Result]
		_, err := s.c.do(ctx, request{method: "GET", path: "/v2/workspace/pages/" + pathID(section), query: listQuery(opts.PageSize, cursor)}, &out)
		return ret(&out, err)
	})
}

// listQuery is the page_size and start_cursor of a GET list.
func listQuery(size int, cursor string) url.Values {
	q := url.Values{}
	if size > 0 {
		q.Set("page_size", strconv.Itoa(size))
	}
	if cursor != "" {
		q.Set("start_cursor", cursor)
	}
	return q
}

// ret returns out, or nil and err when the call failed, so that a caller never holds a
// half-decoded value beside an error.
func ret[T any](out *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return out, nil
}
