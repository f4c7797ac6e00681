package main

import (
	"context"
	"flag"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// webhookJSON is a webhook as the admin commands print it: the API's object.
func webhookJSON(w *quire.Webhook) any {
	types := w.EventTypes
	if types == nil {
		types = []string{}
	}
	return map[string]any{"object": "webhook", "id": w.ID, "workspace_id": w.WorkspaceID, "url": w.URL, "event_types": types,
		"description": w.Description, "status": w.Status, "created_time": quire.FormatMillis(w.CreatedMs)}
}

// webhookCommands are "quire webhook create|list|delete".
var webhookCommands = map[string]adminCommand{
	"webhook create": {
		need: []string{"workspace", "url"},
		synopsis: "webhook create --workspace WS --url URL [--event-types t1,t2] [--description TEXT]\n\n" +
			"Adds a webhook that receives the workspace's later events and prints it with its secret, shown only this once.\n" +
			"The URL is https, or http to loopback; a server started with --webhook-allow-private calls any.",
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			ws := fs.String("workspace", "", "the workspace id (required)")
			u := fs.String("url", "", "where events are POSTed (required)")
			types := fs.String("event-types", "", "comma-separated event types; default every type")
			desc := fs.String("description", "", "a note for people")
			return func(ctx context.Context, svc *service.Service) (any, error) {
				body := map[string]any{"url": *u, "description": *desc}
				if *types != "" {
					var list []any
					for t := range strings.SplitSeq(*types, ",") {
						list = append(list, strings.TrimSpace(t))
					}
					body["event_types"] = list
				}
				nw, err := svc.DecodeNewWebhook(body)
				if err != nil {
					return nil, err
				}
				w, err := svc.CreateWebhook(ctx, *ws, nw)
				if err != nil {
					return nil, err
				}
				out := webhookJSON(w).(map[string]any)
				out["secret"] = w.Secret
				return out, nil
			}
		},
	},
	"webhook list": {
		need:     []string{"workspace"},
		synopsis: "webhook list --workspace WS\n\nPrints the workspace's webhooks, without their secrets.",
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			ws := fs.String("workspace", "", "the workspace id (required)")
			return func(ctx context.Context, svc *service.Service) (any, error) {
				hooks, err := svc.Webhooks(ctx, *ws)
				return listJSON(hooks, webhookJSON), err
			}
		},
	},
	"webhook delete": {
		need:     []string{"workspace", "webhook-id"},
		synopsis: "webhook delete --workspace WS --webhook-id ID\n\nDeletes a webhook: its deliveries stop. Prints it as it was.",
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			ws := fs.String("workspace", "", "the workspace id (required)")
			id := fs.String("webhook-id", "", "the webhook's id (required)")
			return func(ctx context.Context, svc *service.Service) (any, error) {
				w, err := svc.DeleteWebhook(ctx, *ws, *id)
				if err != nil {
					return nil, err
				}
				return webhookJSON(w), nil
			}
		},
	},
}
