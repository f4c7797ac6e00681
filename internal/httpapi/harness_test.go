package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// env is a real server over a real store, reached through real HTTP.
type env struct {
	t     testing.TB
	store *store.Store
	svc   *service.Service
	srv   *httptest.Server
	ws    *quire.Workspace
	owner *quire.User
	// full is a workspace-scoped token with every scope.
	full string
}

type envOptions struct {
	rateLimit  float64
	metricsOff bool // GET /metrics is on by default, as in quire serve
	extra      []func(*Server)
	embedder   service.Embedder  // default: wordHashEmbedder
	files      filestore.Backend // a fresh local folder when nil
	logger     *slog.Logger      // the server's log; discarded (or stderr under -v) when nil
}

// newEnv starts a server on st with one workspace, its owner and a full token.
func newEnv(t testing.TB, st *store.Store, opts ...envOptions) *env {
	t.Helper()
	var o envOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	e := &env{t: t, store: st}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if o.logger != nil {
		logger = o.logger
	}
	if o.files == nil {
		o.files = localFiles(t)
	}
	var h *Server
	e.srv = httptest.NewUnstartedServer(nil)
	base := "http://" + e.srv.Listener.Addr().String()
	if o.embedder == nil {
		o.embedder = wordHashEmbedder{model: "word-hash-64"}
	}
	svc := service.New(st, service.Options{BaseURL: base, Embedder: o.embedder, Files: o.files})
	e.svc = svc
	h = newServer(Config{Service: svc, Logger: logger, BaseURL: base, RateLimit: o.rateLimit, Metrics: !o.metricsOff, DocTime: time.Unix(1700000000, 0)}, o.extra...)
	e.srv.Config.Handler = h
	e.srv.Start()
	t.Cleanup(e.srv.Close)

	ctx := context.Background()
	var err error
	if e.ws, err = svc.CreateWorkspace(ctx, "Acme"); err != nil {
		t.Fatal(err)
	}
	if e.owner, err = svc.CreateUser(ctx, e.ws.ID, "Ada Lovelace", "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	e.full = e.token(quire.AllScopes, true)
	return e
}

// token issues a token of the env's workspace.
func (e *env) token(scopes []quire.Scope, workspaceScoped bool, grants ...string) string {
	e.t.Helper()
	secret, _, err := e.svc.CreateToken(context.Background(), service.TokenSpec{
		WorkspaceID: e.ws.ID, OwnerID: e.owner.ID, Name: "test bot", Scopes: scopes,
		WorkspaceScoped: workspaceScoped, Grants: grants})
	if err != nil {
		e.t.Fatal(err)
	}
	return secret
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// do sends one request; body is JSON-encoded unless it is a string or []byte (sent as is).
// headers are name, value pairs.
func (e *env) do(method, path, token string, body any, headers ...string) *response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewReader([]byte(b))
	case []byte:
		rd = bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	r := &response{status: res.StatusCode, header: res.Header}
	r.raw, _ = io.ReadAll(res.Body)
	if len(r.raw) > 0 && r.raw[0] == '{' {
		if err := json.Unmarshal(r.raw, &r.body); err != nil {
			e.t.Fatalf("%s %s: answer is not JSON: %v: %s", method, path, err, r.raw)
		}
	}
	return r
}

// wantError checks that r is the specification's error body with status, code and (when
// path is not "") a detail at path.
func (r *response) wantError(t testing.TB, status int, code, path string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.raw)
	}
	checkErrorShape(t, r)
	if r.body["code"] != code {
		t.Fatalf("code = %v, want %s; body %s", r.body["code"], code, r.raw)
	}
	if path == "" {
		return
	}
	for _, d := range r.body["details"].([]any) {
		if d.(map[string]any)["path"] == path {
			return
		}
	}
	t.Fatalf("no detail at path %q; body %s", path, r.raw)
}

// checkErrorShape asserts the exact key set and types of the error body.
func checkErrorShape(t testing.TB, r *response) {
	t.Helper()
	if err := errorShape(r); err != nil {
		t.Fatal(err)
	}
}

// errorShape reports how r's body differs from the specification's error body.
func errorShape(r *response) error {
	b := r.body
	if len(b) != 6 || b["object"] != "error" || b["status"] != float64(r.status) {
		return fmt.Errorf("error body has the wrong shape: %s", r.raw)
	}
	if _, ok := b["code"].(string); !ok {
		return fmt.Errorf("code is not a string: %s", r.raw)
	}
	if _, ok := b["message"].(string); !ok {
		return fmt.Errorf("message is not a string: %s", r.raw)
	}
	if rid, _ := b["request_id"].(string); rid == "" || rid != r.header.Get("X-Request-Id") {
		return fmt.Errorf("request_id %v differs from X-Request-Id %q", b["request_id"], r.header.Get("X-Request-Id"))
	}
	details, ok := b["details"].([]any)
	if !ok {
		return fmt.Errorf("details is not an array: %s", r.raw)
	}
	for _, d := range details {
		m, ok := d.(map[string]any)
		if !ok || m["path"] == nil || m["reason"] == nil {
			return fmt.Errorf("detail has the wrong shape: %s", r.raw)
		}
		// limit and actual come together, on a detail beyond a limit, or not at all.
		_, limit := m["limit"].(float64)
		_, actual := m["actual"].(float64)
		beyond := m["reason"] == quire.ReasonTooLong || m["reason"] == quire.ReasonTooMany || m["reason"] == quire.ReasonOutOfRange
		fields := 2
		if limit {
			fields = 4
		}
		if limit != actual || (limit && !beyond) || len(m) != fields {
			return fmt.Errorf("detail has the wrong shape: %s", r.raw)
		}
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		return fmt.Errorf("error Content-Type = %q", ct)
	}
	return nil
}

// tokenSpec describes a token of the env's workspace.
func tokenSpec(e *env, scopes []quire.Scope, workspaceScoped bool, grants ...string) service.TokenSpec {
	return service.TokenSpec{WorkspaceID: e.ws.ID, OwnerID: e.owner.ID, Name: "test bot", Scopes: scopes,
		WorkspaceScoped: workspaceScoped, Grants: grants}
}

// userCount counts the people of the env's workspace through the store.
func (e *env) userCount() int {
	e.t.Helper()
	users, err := e.store.ListUsers(context.Background(), e.ws.ID, nil, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	return len(users)
}
