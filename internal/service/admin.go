package service

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/quire"
)

// CreateWorkspace makes a new, empty workspace.
func (s *Service) CreateWorkspace(ctx context.Context, name string) (*quire.Workspace, error) {
	name = strings.TrimSpace(name)
	if err := checkName("name", name); err != nil {
		return nil, err
	}
	w := &quire.Workspace{ID: quire.NewID(), Name: name, CreatedMs: quire.NowMillis()}
	return w, s.store.CreateWorkspace(ctx, w)
}

// CreateUser adds a person to workspace ws.
func (s *Service) CreateUser(ctx context.Context, ws, name, email string) (*quire.User, error) {
	var pr quire.Problems
	name = strings.TrimSpace(name)
	if err := checkName("name", name); err != nil {
		pr.Add("name", quire.ReasonRequired, "A user needs a name.")
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		pr.Add("email", quire.ReasonInvalidValue, "The email address is not valid.")
	}
	if err := pr.Err(); err != nil {
		return nil, err
	}
	if _, err := s.store.Workspace(ctx, ws); err != nil {
		return nil, err
	}
	u := &quire.User{ID: quire.NewID(), WorkspaceID: ws, Name: name, Email: email, CreatedMs: quire.NowMillis()}
	return u, s.store.CreateUser(ctx, u)
}

// TokenSpec is what `quire token create` asks for.
type TokenSpec struct {
	WorkspaceID     string
	OwnerID         string
	Name            string
	Scopes          []quire.Scope
	WorkspaceScoped bool
	Grants          []string
}

// CreateToken issues a token and returns its secret, which is shown this once and never stored.
func (s *Service) CreateToken(ctx context.Context, spec TokenSpec) (string, *quire.Token, error) {
	if err := checkName("name", strings.TrimSpace(spec.Name)); err != nil {
		return "", nil, err
	}
	if _, err := s.store.User(ctx, spec.WorkspaceID, spec.OwnerID); err != nil {
		return "", nil, quire.NotFound("owner " + spec.OwnerID + " in workspace " + spec.WorkspaceID)
	}
	if !spec.WorkspaceScoped && len(spec.Grants) == 0 {
		return "", nil, quire.Invalid("grant", quire.ReasonRequired,
			"A token that is not workspace-scoped reaches only what is granted to it: pass --grant or --workspace-scoped.")
	}
	secret := newSecret()
	t := &quire.Token{
		ID: quire.NewID(), WorkspaceID: spec.WorkspaceID, OwnerID: spec.OwnerID, IntegrationID: quire.NewID(),
		Name: strings.TrimSpace(spec.Name), Scopes: spec.Scopes, WorkspaceScoped: spec.WorkspaceScoped,
		Grants: spec.Grants, CreatedMs: quire.NowMillis(),
	}
	if err := s.store.CreateToken(ctx, t, hashSecret(secret)); err != nil {
		return "", nil, err
	}
	return secret, t, nil
}

// GrantToken lets token id reach target and everything beneath it.
func (s *Service) GrantToken(ctx context.Context, id, target string) (*quire.Token, error) {
	if err := s.store.Grant(ctx, id, target); err != nil {
		return nil, err
	}
	return s.store.Token(ctx, id)
}

// RevokeToken ends token id for good.
func (s *Service) RevokeToken(ctx context.Context, id string) (*quire.Token, error) {
	if err := s.store.Revoke(ctx, id); err != nil {
		return nil, err
	}
	return s.store.Token(ctx, id)
}

// newSecret makes a token's secret: the prefix and 256 random bits.
func newSecret() string {
	var raw [32]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read never fails (Go 1.24+)
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
}

func checkName(path, name string) error {
	if name == "" {
		return quire.Invalid(path, quire.ReasonRequired, "A name is required.")
	}
	if utf8.RuneCountInString(name) > 200 {
		return quire.OverLimit(quire.Beyond(path, quire.ReasonTooLong, 200, int64(utf8.RuneCountInString(name))), "A name has at most 200 characters.")
	}
	return nil
}
