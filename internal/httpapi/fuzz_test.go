package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/testdb"
)

// FuzzRequest sends generated requests to the real handler over a real store: whatever the
// method, path, headers and body, the answer is never a 5xx, and every error is the
// specification's body.
func FuzzRequest(f *testing.F) {
	e := newEnv(f, testdb.SQLite(f), envOptions{extra: []func(*Server){withProbes}, rateLimit: 1e6})
	h := e.srv.Config.Handler
	for _, seed := range []struct {
		method         uint8
		path, body     string
		auth, idem, im string
	}{
		{0, "/v2/users/me", "", "full", "", ""},
		{0, "/v2/users?page_size=3&start_cursor=abc", "", "full", "", ""},
		{0, "/v2/users/" + e.owner.ID, "", "full", "", ""},
		{1, "/v2/probe/users", `{"name":"a","email":"a@b.c"}`, "full", "k", ""},
		{1, "/v2/probe/users", `{"name":"a","email":"a@b.c","children":[{"paragraph":{"rich_text":[{"text":{"content":"xxxxxxx"}}]}}]}`, "full", "", ""},
		{2, "/v2/probe/version", `{"note":"x"}`, "full", "", `W/"3"`},
		{3, "/v2/probe/users/" + e.owner.ID, "", "full", "", ""},
		{0, "/v2/openapi/meta", "", "", "", ""},
		{1, "/v2/probe/users", `[1,2`, "Bearer quire_x", "", ""},
		{0, "/v2/../v2/users/me", "", "full", "", ""},
	} {
		f.Add(seed.method, seed.path, seed.body, seed.auth, seed.idem, seed.im)
	}
	methods := []string{"GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS"}
	f.Fuzz(func(t *testing.T, method uint8, path, body, auth, idem, ifMatch string) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		req, err := http.NewRequest(methods[int(method)%len(methods)], "http://quire.test"+path, strings.NewReader(body))
		if err != nil {
			return // not a request any client could send
		}
		if auth == "full" {
			auth = "Bearer " + e.full
		}
		for name, v := range map[string]string{"Authorization": auth, "Idempotency-Key": idem, "If-Match": ifMatch} {
			if v != "" && validHeader(v) {
				req.Header.Set(name, v)
			}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %q → %d: %s", req.Method, path, w.Code, w.Body.Bytes())
		}
		if w.Code >= 400 && req.Method != "HEAD" {
			r := &response{status: w.Code, header: w.Header(), raw: w.Body.Bytes()}
			if err := json.Unmarshal(r.raw, &r.body); err != nil {
				t.Fatalf("%s %q → %d with a body that is not JSON: %q", req.Method, path, w.Code, r.raw)
			}
			checkErrorShape(t, r)
		}
		if w.Header().Get("X-Request-Id") == "" {
			t.Fatalf("no X-Request-Id")
		}
	})
}

// validHeader keeps to what net/http would send: no control characters.
func validHeader(v string) bool {
	return !bytes.ContainsAny([]byte(v), "\r\n\x00") && len(v) < 4096
}
