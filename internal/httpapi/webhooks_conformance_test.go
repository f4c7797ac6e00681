package httpapi

import (
	"testing"

	"github.com/quire-dev/quire/internal/quire"
)

// webhookCases are the conformance cases of the webhook routes.
func webhookCases(t testing.TB, e *env) []conformanceCase {
	id := e.mkWebhook(t, "https://hooks.example.com/a")["id"].(string)
	gone := e.mkWebhook(t, "https://hooks.example.com/b")["id"].(string)
	granted := e.token([]quire.Scope{quire.PagesRead}, false, e.mkPage(t, e.full, wsParent, "Webhooks"))
	return []conformanceCase{
		{name: "create webhook", op: "create-webhook", method: "POST", path: "/v2/webhooks", token: e.full,
			body: `{"url":"http://127.0.0.1:9/h","event_types":["page.created"],"description":"d"}`, status: 200},
		{name: "create webhook without token", op: "create-webhook", method: "POST", path: "/v2/webhooks", body: `{"url":"https://a.example/"}`, status: 401},
		{name: "create webhook private url", op: "create-webhook", method: "POST", path: "/v2/webhooks", token: e.full,
			body: `{"url":"https://10.0.0.1/"}`, status: 400, semantic: true},
		{name: "webhooks", op: "list-webhooks", path: "/v2/webhooks", token: e.full, status: 200},
		{name: "webhooks without token", op: "list-webhooks", path: "/v2/webhooks", status: 401},
		{name: "webhooks for a granted token", op: "list-webhooks", path: "/v2/webhooks", token: granted, status: 403},
		{name: "webhook", op: "retrieve-webhook", path: "/v2/webhooks/" + id, token: e.full, status: 200},
		{name: "webhook without token", op: "retrieve-webhook", path: "/v2/webhooks/" + id, status: 401},
		{name: "webhook unknown", op: "retrieve-webhook", path: "/v2/webhooks/" + quire.NewID(), token: e.full, status: 404},
		{name: "patch webhook", op: "update-webhook", method: "PATCH", path: "/v2/webhooks/" + id, token: e.full,
			body: `{"status":"active","event_types":null}`, status: 200},
		{name: "patch webhook without token", op: "update-webhook", method: "PATCH", path: "/v2/webhooks/" + id, body: `{}`, status: 401},
		{name: "webhook deliveries", op: "list-webhook-deliveries", path: "/v2/webhooks/" + id + "/deliveries", token: e.full, status: 200},
		{name: "webhook deliveries without token", op: "list-webhook-deliveries", path: "/v2/webhooks/" + id + "/deliveries", status: 401},
		{name: "delete webhook", op: "delete-webhook", method: "DELETE", path: "/v2/webhooks/" + gone, token: e.full, status: 200},
		{name: "delete webhook without token", op: "delete-webhook", method: "DELETE", path: "/v2/webhooks/" + gone, status: 401},
	}
}
