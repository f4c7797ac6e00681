package httpapi

import (
	"context"
	"net/http"

	"github.com/quire-dev/quire/internal/quire"
)

// userRef points at a user.
type userRef struct {
	Object string `json:"object" enum:"user"`
	ID     string `json:"id" format:"uuid"`
}

type person struct {
	Email *string `json:"email" doc:"Null unless the token holds users.email.read."`
}

// userObject is a person account visible to the token.
type userObject struct {
	Object    string `json:"object" enum:"user"`
	ID        string `json:"id" format:"uuid"`
	Type      string `json:"type" enum:"person"`
	Name      string `json:"name"`
	AvatarURL string `json:"avatar_url"`
	Person    person `json:"person"`
}

func newUserObject(u *quire.User, p *quire.Principal) userObject {
	o := userObject{Object: "user", ID: u.ID, Type: "person", Name: u.Name, AvatarURL: u.AvatarURL}
	if p.Has(quire.UsersRead) && p.Has(quire.UsersEmailRead) {
		email := u.Email
		o.Person.Email = &email
	}
	return o
}

// capabilities has one boolean per scope.
type capabilities struct {
	PagesRead      bool `json:"pages.read"`
	PagesWrite     bool `json:"pages.write"`
	BlocksRead     bool `json:"blocks.read"`
	BlocksWrite    bool `json:"blocks.write"`
	DatabasesRead  bool `json:"databases.read"`
	DatabasesWrite bool `json:"databases.write"`
	UsersRead      bool `json:"users.read"`
	UsersEmailRead bool `json:"users.email.read"`
	SearchRead     bool `json:"search.read"`
}

// botUser is the calling integration.
type botUser struct {
	Object        string       `json:"object" enum:"bot_user"`
	ID            string       `json:"id" format:"uuid" doc:"The bot id: the token's id."`
	Name          string       `json:"name"`
	WorkspaceID   string       `json:"workspace_id" format:"uuid"`
	WorkspaceName string       `json:"workspace_name"`
	Owner         userRef      `json:"owner"`
	Capabilities  capabilities `json:"capabilities"`
	Type          string       `json:"type" enum:"integration"`
	IntegrationID string       `json:"integration_id" format:"uuid"`
	WorkspaceWide bool         `json:"workspace_scoped" doc:"True when the token reaches the whole workspace, false when only its grants."`
}

type botUserOutput struct{ Body botUser }
type userOutput struct{ Body userObject }
type userListOutput struct{ Body list[userObject] }

type userIDInput struct {
	UserID string `path:"user_id" format:"uuid" doc:"The user's id."`
}

type listUsersInput struct{ PageParams }

func (s *Server) registerUsers() {
	register(s, op("retrieve-bot-user", http.MethodGet, "/v2/users/me", "Users",
		"Retrieve the token's bot user",
		"The integration identity of the calling token, with one capability flag per scope."), route{}, s.getMe)
	register(s, op("retrieve-user", http.MethodGet, "/v2/users/{user_id}", "Users",
		"Retrieve a user",
		"person.email is null unless the token also holds users.email.read."), route{scopes: []quire.Scope{quire.UsersRead}}, s.getUser)
	register(s, op("list-users", http.MethodGet, "/v2/users", "Users",
		"List users",
		"The people of the workspace, oldest first."), route{scopes: []quire.Scope{quire.UsersRead}, workspaceScoped: true}, s.listUsers)
}

// getMe answers GET /v2/users/me.
func (s *Server) getMe(ctx context.Context, _ *struct{}) (*botUserOutput, error) {
	p := principal(ctx)
	t := p.Token
	return &botUserOutput{Body: botUser{
		Object: "bot_user", ID: t.ID, Name: t.Name, WorkspaceID: t.WorkspaceID, WorkspaceName: p.WorkspaceName,
		Owner: userRef{Object: "user", ID: t.OwnerID}, Type: "integration", IntegrationID: t.IntegrationID,
		WorkspaceWide: t.WorkspaceScoped,
		Capabilities: capabilities{
			PagesRead: p.Has(quire.PagesRead), PagesWrite: p.Has(quire.PagesWrite),
			BlocksRead: p.Has(quire.BlocksRead), BlocksWrite: p.Has(quire.BlocksWrite),
			DatabasesRead: p.Has(quire.DatabasesRead), DatabasesWrite: p.Has(quire.DatabasesWrite),
			UsersRead: p.Has(quire.UsersRead), UsersEmailRead: p.Has(quire.UsersEmailRead),
			SearchRead: p.Has(quire.SearchRead),
		},
	}}, nil
}

// getUser answers GET /v2/users/{user_id}.
func (s *Server) getUser(ctx context.Context, in *userIDInput) (*userOutput, error) {
	p := principal(ctx)
	u, err := s.svc.User(ctx, p, in.UserID)
	if err != nil {
		return nil, err
	}
	return &userOutput{Body: newUserObject(u, p)}, nil
}

// listUsers answers GET /v2/users.
func (s *Server) listUsers(ctx context.Context, in *listUsersInput) (*userListOutput, error) {
	p := principal(ctx)
	page, err := s.svc.ListUsers(ctx, p, in.StartCursor, in.PageSize)
	if err != nil {
		return nil, err
	}
	items := make([]userObject, len(page.Items))
	for i, u := range page.Items {
		items[i] = newUserObject(u, p)
	}
	return &userListOutput{Body: newList(items, page.NextCursor)}, nil
}
