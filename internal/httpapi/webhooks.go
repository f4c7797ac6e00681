package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
)

// webhookObject is a webhook as every answer shows it; only creation's shows the secret.
type webhookObject struct {
	Object      string   `json:"object" enum:"webhook"`
	ID          string   `json:"id" format:"uuid"`
	URL         string   `json:"url" format:"uri"`
	EventTypes  []string `json:"event_types" nullable:"false" doc:"The event types delivered; empty for every type."`
	Description string   `json:"description"`
	Status      string   `json:"status" enum:"active,failing" doc:"failing: an event was refused for the whole retry window (3 days); deliveries wait, the backlog kept, until a PATCH sets status active."`
	Secret      string   `json:"secret,omitempty" doc:"Signs every delivery (Quire-Signature). Shown only in the answer to the creation."`
	CreatedTime string   `json:"created_time" format:"date-time"`
}

type webhookOutput struct{ Body webhookObject }

type webhookListOutput struct{ Body list[webhookObject] }

// webhookDelivery is one attempt to deliver an event.
type webhookDelivery struct {
	Object      string `json:"object" enum:"webhook_delivery"`
	ID          string `json:"id" format:"uuid"`
	EventID     string `json:"event_id" format:"uuid"`
	Attempt     int    `json:"attempt" doc:"1 for the event's first attempt."`
	StatusCode  *int   `json:"status_code" doc:"The receiver's HTTP status; null when no answer came (refused, timed out)."`
	Error       string `json:"error,omitempty" doc:"Why the attempt failed; absent for an acknowledged one."`
	Succeeded   bool   `json:"succeeded" doc:"The receiver answered 2xx."`
	DurationMs  int64  `json:"duration_ms"`
	CreatedTime string `json:"created_time" format:"date-time"`
}

type webhookDeliveryListOutput struct{ Body list[webhookDelivery] }

type createWebhookInput struct {
	Body reqBody[createWebhookRequest]
}

type webhookIDInput struct {
	WebhookID string `path:"webhook_id" format:"uuid"`
}

type updateWebhookInput struct {
	WebhookID string `path:"webhook_id" format:"uuid"`
	Body      reqBody[updateWebhookRequest]
}

func (s *Server) registerWebhooks() {
	rt := route{scopes: []quire.Scope{quire.PagesRead}, workspaceScoped: true}
	register(s, op("create-webhook", http.MethodPost, "/v2/webhooks", "Webhooks",
		"Create a webhook",
		"Delivers every later event of the workspace (of event_types, when given) to url: a POST of the event "+
			"object, signed with the secret this answer shows once (Quire-Signature: t=UNIX,v1=hex HMAC-SHA256 of \"t.body\"). "+
			"A 2xx acknowledges; anything else is retried with backoff, in order, for 3 days."), rt, s.createWebhook)
	register(s, op("list-webhooks", http.MethodGet, "/v2/webhooks", "Webhooks",
		"List webhooks",
		"Every webhook of the workspace, oldest first; never their secrets."), rt, s.listWebhooks)
	register(s, op("retrieve-webhook", http.MethodGet, "/v2/webhooks/{webhook_id}", "Webhooks",
		"Retrieve a webhook",
		""), rt, s.getWebhook)
	register(s, op("update-webhook", http.MethodPatch, "/v2/webhooks/{webhook_id}", "Webhooks",
		"Update a webhook",
		"Sets url, event_types or description; status active resumes a failing webhook where it stopped."), rt, s.patchWebhook)
	register(s, op("delete-webhook", http.MethodDelete, "/v2/webhooks/{webhook_id}", "Webhooks",
		"Delete a webhook",
		"Stops the deliveries for good; answers the webhook as it was."), rt, s.deleteWebhook)
	register(s, op("list-webhook-deliveries", http.MethodGet, "/v2/webhooks/{webhook_id}/deliveries", "Webhooks",
		"List a webhook's deliveries",
		"The webhook's 100 most recent delivery attempts, newest first, with the receiver's status codes."), rt, s.listWebhookDeliveries)
	s.documentDelivery()
}

// documentDelivery describes, under the document's webhooks, the request a receiver gets.
func (s *Server) documentDelivery() {
	oapi := s.api.OpenAPI()
	evSchema := oapi.Components.Schemas.Schema(reflect.TypeFor[eventObject](), true, "")
	if oapi.Webhooks == nil {
		oapi.Webhooks = map[string]*huma.PathItem{}
	}
	oapi.Webhooks["event"] = &huma.PathItem{Post: &huma.Operation{
		OperationID: "deliver-event", Summary: "An event delivered to a webhook", Tags: []string{"Webhooks"},
		Security: []map[string][]string{}, // no token: the signature is the credential
		Description: "Quire POSTs each event to the webhook's url, in order, one at a time. To verify a delivery, compute " +
			"the hex HMAC-SHA256 of `t + \".\" + body` (the raw body bytes) keyed with the webhook's secret, compare it in " +
			"constant time with v1, and refuse a t far from now. Answer 2xx within 10 s to acknowledge; anything else " +
			"(a redirect too) is retried with exponential backoff for 3 days, and the later events wait. An event may be " +
			"delivered more than once: Quire-Event-Id tells repeats apart.",
		Parameters: []*huma.Param{
			{Name: "Quire-Webhook-Id", In: "header", Required: true, Description: "The webhook's id.", Schema: &huma.Schema{Type: "string", Format: "uuid"}},
			{Name: "Quire-Event-Id", In: "header", Required: true, Description: "The event's id, the same as the body's id.", Schema: &huma.Schema{Type: "string", Format: "uuid"}},
			{Name: "Quire-Signature", In: "header", Required: true, Description: "t=UNIX_SECONDS,v1=HEX: the hex HMAC-SHA256 of \"t.body\" keyed with the secret.", Schema: &huma.Schema{Type: "string"}},
		},
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"application/json": {Schema: evSchema}}},
		Responses: map[string]*huma.Response{"2XX": {Description: "Acknowledged: the next event follows."},
			"default": {Description: "Not acknowledged: the event is tried again later."}},
	}}
}

// EventJSON is the body of a webhook delivery: the event object, as GET /v2/events shows it.
func EventJSON(ev quire.Event) ([]byte, error) { return json.Marshal(newEventObject(ev)) }

func newWebhookObject(w *quire.Webhook) webhookObject {
	types := w.EventTypes
	if types == nil {
		types = []string{}
	}
	return webhookObject{Object: "webhook", ID: w.ID, URL: w.URL, EventTypes: types, Description: w.Description,
		Status: w.Status, CreatedTime: quire.FormatMillis(w.CreatedMs)}
}

// createWebhook answers POST /v2/webhooks.
func (s *Server) createWebhook(ctx context.Context, in *createWebhookInput) (*webhookOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	nw, err := s.svc.DecodeNewWebhook(body)
	if err != nil {
		return nil, err
	}
	w, err := s.svc.CreateWebhook(ctx, principal(ctx).WorkspaceID(), nw)
	if err != nil {
		return nil, err
	}
	o := newWebhookObject(w)
	o.Secret = w.Secret
	return &webhookOutput{Body: o}, nil
}

// listWebhooks answers GET /v2/webhooks.
func (s *Server) listWebhooks(ctx context.Context, _ *struct{}) (*webhookListOutput, error) {
	ws, err := s.svc.Webhooks(ctx, principal(ctx).WorkspaceID())
	if err != nil {
		return nil, err
	}
	return &webhookListOutput{Body: listOf(ws, "", newWebhookObject)}, nil
}

// getWebhook answers GET /v2/webhooks/{webhook_id}.
func (s *Server) getWebhook(ctx context.Context, in *webhookIDInput) (*webhookOutput, error) {
	return webhookAnswer(s.svc.Webhook(ctx, principal(ctx).WorkspaceID(), in.WebhookID))
}

// patchWebhook answers PATCH /v2/webhooks/{webhook_id}.
func (s *Server) patchWebhook(ctx context.Context, in *updateWebhookInput) (*webhookOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	c, err := s.svc.DecodeWebhookChange(body)
	if err != nil {
		return nil, err
	}
	return webhookAnswer(s.svc.UpdateWebhook(ctx, principal(ctx).WorkspaceID(), in.WebhookID, c))
}

// deleteWebhook answers DELETE /v2/webhooks/{webhook_id}.
func (s *Server) deleteWebhook(ctx context.Context, in *webhookIDInput) (*webhookOutput, error) {
	return webhookAnswer(s.svc.DeleteWebhook(ctx, principal(ctx).WorkspaceID(), in.WebhookID))
}

func webhookAnswer(w *quire.Webhook, err error) (*webhookOutput, error) {
	if err != nil {
		return nil, err
	}
	return &webhookOutput{Body: newWebhookObject(w)}, nil
}

// listWebhookDeliveries answers GET /v2/webhooks/{webhook_id}/deliveries.
func (s *Server) listWebhookDeliveries(ctx context.Context, in *webhookIDInput) (*webhookDeliveryListOutput, error) {
	ds, err := s.svc.WebhookDeliveries(ctx, principal(ctx).WorkspaceID(), in.WebhookID)
	if err != nil {
		return nil, err
	}
	return &webhookDeliveryListOutput{Body: listOf(ds, "", func(d quire.WebhookDelivery) webhookDelivery {
		o := webhookDelivery{Object: "webhook_delivery", ID: d.ID, EventID: d.EventID, Attempt: d.Attempt, Error: d.Error,
			Succeeded: d.Error == "", DurationMs: d.DurationMs, CreatedTime: quire.FormatMillis(d.CreatedMs)}
		if d.StatusCode != 0 {
			o.StatusCode = &d.StatusCode
		}
		return o
	})}, nil
}
