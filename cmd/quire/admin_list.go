package main

import (
	"context"
	"flag"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// listJSON is a list as admin commands print it, shaped like the API's lists.
func listJSON[T any](items []T, encode func(T) any) map[string]any {
	results := make([]any, 0, len(items))
	for _, it := range items {
		results = append(results, encode(it))
	}
	return map[string]any{"object": "list", "results": results}
}

func workspaceJSON(w *quire.Workspace) any {
	return map[string]any{"object": "workspace", "id": w.ID, "name": w.Name, "created_time": quire.FormatMillis(w.CreatedMs)}
}

func tokenJSON(t *quire.Token) any { return newTokenRecord(t) }

// tokenIDCommand is a command that takes one token's id and prints what do returns.
func tokenIDCommand(synopsis string, do func(ctx context.Context, svc *service.Service, id string) (any, error)) adminCommand {
	return adminCommand{
		need:     []string{"token-id"},
		synopsis: synopsis,
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			id := fs.String("token-id", "", "the token's bot id (required)")
			return func(ctx context.Context, svc *service.Service) (any, error) { return do(ctx, svc, *id) }
		},
	}
}

// listCommands are the admin commands that read what the store holds, and token rotate.
var listCommands = map[string]adminCommand{
	"workspace list": {
		synopsis: "workspace list\n\nPrints every workspace of the store: {\"object\":\"list\",\"results\":[{\"object\":\"workspace\",\"id\",\"name\",\"created_time\"}…]}.",
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			return func(ctx context.Context, svc *service.Service) (any, error) {
				ws, err := svc.Workspaces(ctx)
				return listJSON(ws, workspaceJSON), err
			}
		},
	},
	"user list": {
		need:     []string{"workspace"},
		synopsis: "user list --workspace WS\n\nPrints the people of a workspace, oldest first, as a list of user objects.",
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			ws := fs.String("workspace", "", "the workspace id (required)")
			return func(ctx context.Context, svc *service.Service) (any, error) {
				users, err := svc.AllUsers(ctx, *ws)
				return listJSON(users, func(u *quire.User) any { return userJSON(u) }), err
			}
		},
	},
	"token list": {
		synopsis: "token list [--workspace WS]\n\nPrints the tokens of one workspace, or of all, revoked ones included, as token records\n" +
			"without their grants or secrets (secrets are never stored; quire token show adds the grants).",
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			ws := fs.String("workspace", "", "only this workspace's tokens")
			return func(ctx context.Context, svc *service.Service) (any, error) {
				tokens, err := svc.Tokens(ctx, *ws)
				return listJSON(tokens, tokenJSON), err
			}
		},
	},
	"token show": tokenIDCommand("token show --token-id BOT_ID\n\nPrints one token's record with its grants, never its secret.",
		func(ctx context.Context, svc *service.Service, id string) (any, error) {
			t, err := svc.Token(ctx, id)
			if err != nil {
				return nil, err
			}
			return newTokenRecord(t), nil
		}),
	"token rotate": tokenIDCommand("token rotate --token-id BOT_ID\n\n"+
		"Gives a live token a new secret and prints {\"token\",\"bot_id\",\"integration_id\"}; the secret is shown only\n"+
		"this once. The token keeps its id, scopes and grants. Every server refuses the old secret from the\n"+
		"moment the command returns.",
		func(ctx context.Context, svc *service.Service, id string) (any, error) {
			secret, t, err := svc.RotateToken(ctx, id)
			if err != nil {
				return nil, err
			}
			return map[string]any{"token": secret, "bot_id": t.ID, "integration_id": t.IntegrationID}, nil
		}),
}
