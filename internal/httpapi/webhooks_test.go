package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// mkWebhook creates a webhook to url and returns its answer.
func (e *env) mkWebhook(t testing.TB, url string, types ...any) map[string]any {
	t.Helper()
	body := map[string]any{"url": url, "description": "test receiver"}
	if len(types) > 0 {
		body["event_types"] = types
	}
	r := e.do(http.MethodPost, "/v2/webhooks", e.full, body)
	wantOK(t, r, http.StatusOK)
	return r.body
}

func TestWebhooks_CRUD(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		created := e.mkWebhook(t, "http://127.0.0.1:9/hook", "page.created", "page.created", "page.moved")
		id := created["id"].(string)
		secret, _ := created["secret"].(string)
		if !strings.HasPrefix(secret, "whsec_") || len(secret) != len("whsec_")+64 {
			t.Fatalf("secret = %q, want whsec_ and 64 hex digits", secret)
		}
		want := map[string]any{"object": "webhook", "id": id, "url": "http://127.0.0.1:9/hook",
			"event_types": []any{"page.created", "page.moved"}, "description": "test receiver", "status": "active",
			"created_time": created["created_time"]}
		got := e.do(http.MethodGet, "/v2/webhooks/"+id, e.full, nil)
		wantOK(t, got, 200)
		if d := cmp.Diff(want, got.body); d != "" {
			t.Fatalf("GET webhook (-want +got; the secret is never shown again):\n%s", d)
		}
		list := e.do(http.MethodGet, "/v2/webhooks", e.full, nil)
		wantOK(t, list, 200)
		if d := cmp.Diff([]map[string]any{want}, objects(list.body["results"])); d != "" {
			t.Fatalf("list (-want +got):\n%s", d)
		}

		patched := e.do(http.MethodPatch, "/v2/webhooks/"+id, e.full, map[string]any{"event_types": nil, "description": "all", "status": "active"})
		wantOK(t, patched, 200)
		want["event_types"], want["description"] = []any{}, "all"
		if d := cmp.Diff(want, patched.body); d != "" {
			t.Fatalf("PATCH (-want +got):\n%s", d)
		}
		ds := e.do(http.MethodGet, "/v2/webhooks/"+id+"/deliveries", e.full, nil)
		wantOK(t, ds, 200)
		if n := len(objects(ds.body["results"])); n != 0 {
			t.Fatalf("a new webhook has %d deliveries", n)
		}

		wantOK(t, e.do(http.MethodDelete, "/v2/webhooks/"+id, e.full, nil), 200)
		e.do(http.MethodGet, "/v2/webhooks/"+id, e.full, nil).wantError(t, 404, "not_found", "")
		e.do(http.MethodGet, "/v2/webhooks/"+id+"/deliveries", e.full, nil).wantError(t, 404, "not_found", "")
		e.do(http.MethodDelete, "/v2/webhooks/"+id, e.full, nil).wantError(t, 404, "not_found", "")
	})
}

func TestWebhooks_Errors(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		id := e.mkWebhook(t, "https://hooks.example.com/q")["id"].(string)
		granted := e.token([]quire.Scope{quire.PagesRead}, false, e.mkPage(t, e.full, wsParent, "Shared"))
		noRead := e.token([]quire.Scope{quire.UsersRead}, true)
		for _, tc := range []struct {
			name, method, path, token string
			body                      any
			status                    int
			code, at                  string
		}{
			{"no url", "POST", "/v2/webhooks", e.full, map[string]any{}, 400, "validation_error", "url"},
			{"url not a string", "POST", "/v2/webhooks", e.full, map[string]any{"url": 5}, 400, "validation_error", "url"},
			{"ftp url", "POST", "/v2/webhooks", e.full, map[string]any{"url": "ftp://x.example/"}, 400, "validation_error", "url"},
			{"plain http outside loopback", "POST", "/v2/webhooks", e.full, map[string]any{"url": "http://hooks.example.com/"}, 400, "validation_error", "url"},
			{"private address", "POST", "/v2/webhooks", e.full, map[string]any{"url": "https://10.0.0.8/"}, 400, "validation_error", "url"},
			{"metadata address", "POST", "/v2/webhooks", e.full, map[string]any{"url": "https://169.254.169.254/"}, 400, "validation_error", "url"},
			{"unknown type", "POST", "/v2/webhooks", e.full, map[string]any{"url": "https://a.example/", "event_types": []any{"page.created", "nope"}}, 400, "validation_error", "event_types[1]"},
			{"types not a list", "POST", "/v2/webhooks", e.full, map[string]any{"url": "https://a.example/", "event_types": "page.created"}, 400, "validation_error", "event_types"},
			{"long description", "POST", "/v2/webhooks", e.full, map[string]any{"url": "https://a.example/", "description": strings.Repeat("d", 2001)}, 400, "validation_error", "description"},
			{"unknown field", "POST", "/v2/webhooks", e.full, map[string]any{"url": "https://a.example/", "secret": "x"}, 400, "validation_error", "secret"},
			{"not json", "POST", "/v2/webhooks", e.full, "{", 400, "invalid_json", ""},
			{"no token", "GET", "/v2/webhooks", "", nil, 401, "unauthorized", ""},
			{"token not workspace-scoped", "GET", "/v2/webhooks", granted, nil, 403, "forbidden", ""},
			{"token without pages.read", "POST", "/v2/webhooks", noRead, map[string]any{"url": "https://a.example/"}, 403, "forbidden", ""},
			{"patch status failing", "PATCH", "/v2/webhooks/" + id, e.full, map[string]any{"status": "failing"}, 400, "validation_error", "status"},
			{"patch url", "PATCH", "/v2/webhooks/" + id, e.full, map[string]any{"url": "http://192.168.1.1/"}, 400, "validation_error", "url"},
			{"patch unknown", "PATCH", "/v2/webhooks/" + id, e.full, map[string]any{"secret": "x"}, 400, "validation_error", "secret"},
			{"patch missing", "PATCH", "/v2/webhooks/" + quire.NewID(), e.full, map[string]any{"description": "x"}, 404, "not_found", ""},
			{"other workspace's id", "GET", "/v2/webhooks/" + quire.NewID(), e.full, nil, 404, "not_found", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.do(tc.method, tc.path, tc.token, tc.body).wantError(t, tc.status, tc.code, tc.at)
			})
		}
		// Nothing was changed by the refused writes.
		got := e.do(http.MethodGet, "/v2/webhooks/"+id, e.full, nil)
		if got.body["url"] != "https://hooks.example.com/q" || got.body["status"] != "active" {
			t.Fatalf("after refused writes: %s", got.raw)
		}
	})
}
