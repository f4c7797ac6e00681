package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// Probe routes exist only in tests: they exercise the shared mechanisms (body validation,
// idempotency, versions, hidden routes) through real writes before the content routes exist.

type probeText struct {
	Content string `json:"content" maxLength:"5"`
}

type probeRichText struct {
	Text probeText `json:"text"`
}

type probeChild struct {
	Paragraph struct {
		RichText []probeRichText `json:"rich_text" maxItems:"2"`
	} `json:"paragraph"`
}

type probeUserInput struct {
	Body struct {
		Name     string       `json:"name" minLength:"1" maxLength:"20"`
		Email    string       `json:"email"`
		Children []probeChild `json:"children,omitempty" maxItems:"3"`
	}
}

type probeVersionInput struct {
	IfMatch string `header:"If-Match"`
	Body    struct {
		Note string `json:"note"`
	}
}

type probeVersionOutput struct {
	ETag string `header:"ETag"`
	Body struct {
		Note string `json:"note"`
	}
}

// probeVersion is the current version of the probe resource.
const probeVersion = 3

func withProbes(s *Server) {
	register(s, huma.Operation{OperationID: "probe-create-user", Method: http.MethodPost, Path: "/v2/probe/users",
		Summary: "Probe: create a user", DefaultStatus: http.StatusCreated},
		route{scopes: []quire.Scope{quire.UsersRead}}, func(ctx context.Context, in *probeUserInput) (*userOutput, error) {
			p := principal(ctx)
			u, err := s.svc.CreateUser(ctx, p.WorkspaceID(), in.Body.Name, in.Body.Email)
			if err != nil {
				return nil, err
			}
			return &userOutput{Body: newUserObject(u, p)}, nil
		})
	register(s, huma.Operation{OperationID: "probe-patch-version", Method: http.MethodPatch, Path: "/v2/probe/version",
		Summary: "Probe: versioned write"},
		route{}, func(ctx context.Context, in *probeVersionInput) (*probeVersionOutput, error) {
			if err := service.CheckVersion(in.IfMatch, probeVersion); err != nil {
				return nil, err
			}
			out := &probeVersionOutput{ETag: etag(probeVersion)}
			out.Body.Note = in.Body.Note
			return out, nil
		})
	registerHidden(s, huma.Operation{OperationID: "probe-delete", Method: http.MethodDelete, Path: "/v2/probe/users/{user_id}",
		Summary: "Probe: hidden delete"},
		route{scopes: []quire.Scope{quire.UsersRead}}, func(ctx context.Context, in *userIDInput) (*userOutput, error) {
			u, err := s.svc.User(ctx, principal(ctx), in.UserID)
			if err != nil {
				return nil, err
			}
			return &userOutput{Body: newUserObject(u, principal(ctx))}, nil
		})
}
