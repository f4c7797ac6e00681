package quire

import "slices"

// Workspace is a tenant: every user, token and piece of content belongs to exactly one.
type Workspace struct {
	ID        string
	Name      string
	CreatedMs int64
}

// User is a person account of a workspace.
type User struct {
	ID          string
	WorkspaceID string
	Name        string
	Email       string
	AvatarURL   string
	CreatedMs   int64
}

// Token is an integration's credential as stored: the secret itself is never kept, only its hash.
// Its ID is the bot id of GET /v2/users/me.
type Token struct {
	ID              string
	WorkspaceID     string
	OwnerID         string
	IntegrationID   string
	Name            string
	Scopes          []Scope
	WorkspaceScoped bool
	Grants          []string // page and database ids the token reaches, with everything beneath them
	CreatedMs       int64
	RevokedMs       int64 // 0 while the token is live
}

// Principal is the authenticated caller of one request: a live token and its workspace.
type Principal struct {
	Token         *Token
	WorkspaceName string
}

// Has reports whether the caller's token holds scope s.
func (p *Principal) Has(s Scope) bool {
	return slices.Contains(p.Token.Scopes, s)
}

// WorkspaceID is the caller's workspace.
func (p *Principal) WorkspaceID() string { return p.Token.WorkspaceID }
