package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestErrorBodies(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st, envOptions{extra: []func(*Server){withProbes}})
		long := strings.Repeat("x", 6)
		para := func(s string) map[string]any {
			return map[string]any{"paragraph": map[string]any{"rich_text": []any{map[string]any{"text": map[string]any{"content": s}}}}}
		}
		big := `{"name":"a","email":"a@b.c","pad":"` + strings.Repeat("x", 1<<20) + `"}`
		for _, tc := range []struct {
			name    string
			method  string
			path    string
			body    any
			headers []string
			status  int
			code    string
			path2   string
			reason  string
		}{
			{name: "unknown route", method: "GET", path: "/v2/nope", status: 404, code: quire.CodeNotFound},
			{name: "unknown route outside v2", method: "GET", path: "/nope", status: 404, code: quire.CodeNotFound},
			{name: "wrong method", method: "DELETE", path: "/v2/users/me", status: 405, code: quire.CodeMethodNotAllowed},
			{name: "not JSON", method: "POST", path: "/v2/probe/users", body: "{", status: 400, code: quire.CodeInvalidJSON},
			{name: "JSON array", method: "POST", path: "/v2/probe/users", body: "[]", status: 400, code: quire.CodeInvalidJSON},
			{name: "JSON string", method: "POST", path: "/v2/probe/users", body: `"hi"`, status: 400, code: quire.CodeInvalidJSON},
			{name: "wrong content type", method: "POST", path: "/v2/probe/users", body: `{"name":"a","email":"a@b.c"}`,
				headers: []string{"Content-Type", "text/plain"}, status: 400, code: quire.CodeInvalidJSON},
			{name: "unknown field", method: "POST", path: "/v2/probe/users", body: map[string]any{"name": "a", "email": "a@b.c", "extra": 1},
				status: 400, code: quire.CodeValidation, path2: "extra", reason: quire.ReasonUnknownField},
			{name: "required", method: "POST", path: "/v2/probe/users", body: map[string]any{"email": "a@b.c"},
				status: 400, code: quire.CodeValidation, path2: "name", reason: quire.ReasonRequired},
			{name: "wrong type", method: "POST", path: "/v2/probe/users", body: map[string]any{"name": 5, "email": "a@b.c"},
				status: 400, code: quire.CodeValidation, path2: "name", reason: quire.ReasonInvalidType},
			{name: "too long", method: "POST", path: "/v2/probe/users", body: map[string]any{"name": strings.Repeat("n", 21), "email": "a@b.c"},
				status: 400, code: quire.CodeValidation, path2: "name", reason: quire.ReasonTooLong},
			{name: "nested path with indexes", method: "POST", path: "/v2/probe/users",
				body:   map[string]any{"name": "a", "email": "a@b.c", "children": []any{para("ok"), para(long)}},
				status: 400, code: quire.CodeValidation, path2: "children[1].paragraph.rich_text[0].text.content", reason: quire.ReasonTooLong},
			{name: "too many", method: "POST", path: "/v2/probe/users",
				body:   map[string]any{"name": "a", "email": "a@b.c", "children": []any{para("a"), para("b"), para("c"), para("d")}},
				status: 400, code: quire.CodeValidation, path2: "children", reason: quire.ReasonTooMany},
			{name: "nested unknown field", method: "POST", path: "/v2/probe/users",
				body:   map[string]any{"name": "a", "email": "a@b.c", "children": []any{map[string]any{"paragraph": map[string]any{"rich_text": []any{}, "colour": "red"}}}},
				status: 400, code: quire.CodeValidation, path2: "children[0].paragraph.colour", reason: quire.ReasonUnknownField},
			{name: "service validation", method: "POST", path: "/v2/probe/users", body: map[string]any{"name": "a", "email": "not an email"},
				status: 400, code: quire.CodeValidation, path2: "email", reason: quire.ReasonInvalidValue},
			{name: "over 1 MiB", method: "POST", path: "/v2/probe/users", body: big, status: 413, code: quire.CodePayloadTooLarge},
			{name: "over 1 MiB with Idempotency-Key", method: "POST", path: "/v2/probe/users", body: big,
				headers: []string{"Idempotency-Key", "k-big"}, status: 413, code: quire.CodePayloadTooLarge},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.userCount()
				r := e.do(tc.method, tc.path, e.full, tc.body, tc.headers...)
				r.wantError(t, tc.status, tc.code, tc.path2)
				if tc.reason != "" {
					found := false
					for _, d := range r.body["details"].([]any) {
						d := d.(map[string]any)
						found = found || d["path"] == tc.path2 && d["reason"] == tc.reason
					}
					if !found {
						t.Fatalf("no detail {%s %s}: %s", tc.path2, tc.reason, r.raw)
					}
				}
				if tc.status == 405 && r.header.Get("Allow") != "GET" {
					t.Errorf("Allow = %q, want GET", r.header.Get("Allow"))
				}
				if after := e.userCount(); after != before {
					t.Fatalf("a rejected request wrote: %d users before, %d after", before, after)
				}
			})
		}
	})
}

// TestEmptyBody: a write sent with no body at all answers invalid_json (it answered a
// validation_error naming no path), or succeeds where the body is optional; found by
// TestServerProperty.
func TestEmptyBody(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "P")
		routes := e.srv.Config.Handler.(*Server).routes
		for _, key := range slices.Sorted(maps.Keys(routes)) {
			method, pattern, _ := strings.Cut(key, " ")
			if method != http.MethodPost && method != http.MethodPatch && method != http.MethodPut {
				continue
			}
			for _, ct := range []string{"application/json", ""} {
				r := e.do(method, fillPath(pattern, page, e.owner.ID), e.full, nil, "Content-Type", ct)
				if r.status == 200 || r.status == 404 {
					continue // an optional body (database query), past parsing to the id
				}
				if r.status != 400 || r.body["code"] != quire.CodeInvalidJSON {
					t.Errorf("%s with no body (Content-Type %q): %d %s, want 400 invalid_json", key, ct, r.status, r.raw)
				}
			}
		}
	})
}

// TestNullBody: a write whose body is JSON but no object answers invalid_json on every route
// (contract §3). null was taken as {} by the routes that decode into a map: POST /v2/pages
// created a page; found by TestServerProperty.
func TestNullBody(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "P")
		routes := e.srv.Config.Handler.(*Server).routes
		before := e.do(http.MethodGet, "/v2/workspace", e.full, nil).body["page_count"]
		for _, key := range slices.Sorted(maps.Keys(routes)) {
			method, pattern, _ := strings.Cut(key, " ")
			if method != http.MethodPost && method != http.MethodPatch && method != http.MethodPut {
				continue
			}
			for _, body := range []string{"null", " null\n", "[]", "1", `"x"`, "true"} {
				r := e.do(method, fillPath(pattern, page, e.owner.ID), e.full, body)
				if r.status != 400 || r.body["code"] != quire.CodeInvalidJSON {
					t.Errorf("%s with body %q: %d %s, want 400 invalid_json", key, body, r.status, r.raw)
				}
			}
		}
		if after := e.do(http.MethodGet, "/v2/workspace", e.full, nil).body["page_count"]; after != before {
			t.Fatalf("page_count %v → %v after refused writes", before, after)
		}
	})
}

// TestBodyOfOneMiB: a body of exactly 1 MiB is taken, one byte more is refused with 413,
// with and without Idempotency-Key (exactly 1 MiB answered 413: huma refuses a body that
// reaches its limit; found while writing the HTTP fuzzing's size checks).
func TestBodyOfOneMiB(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		for i, n := range []int{maxBody, maxBody + 1} {
			body := `{"x":"` + strings.Repeat("x", n-8) + `"}`
			for _, key := range []string{"", fmt.Sprintf("k%d", i)} {
				r := e.do(http.MethodPost, "/v2/pages", e.full, body, "Idempotency-Key", key)
				if n <= maxBody {
					r.wantError(t, 400, quire.CodeValidation, "x") // read whole: the field is unknown
				} else {
					r.wantError(t, 413, quire.CodePayloadTooLarge, "")
				}
			}
		}
	})
}

// TestShortBody: a body that ends before its Content-Length answers 400 invalid_json and logs
// no error (it answered 500 internal_error, logged as the server's fault), with and without
// Idempotency-Key, and writes nothing.
func TestShortBody(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		var logs bytes.Buffer
		var mu sync.Mutex
		logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelError}))
		e := newEnv(t, st, envOptions{logger: logger})
		before := e.do(http.MethodGet, "/v2/workspace", e.full, nil).body["page_count"]
		for _, extra := range []string{"", "Idempotency-Key: short\r\n"} {
			conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(conn, "POST /v2/pages HTTP/1.1\r\nHost: quire.test\r\nAuthorization: Bearer %s\r\n"+
				"Content-Type: application/json\r\n%sContent-Length: 100\r\n\r\n{\"parent\":", e.full, extra)
			_ = conn.(*net.TCPConn).CloseWrite()
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			r := &response{status: res.StatusCode, header: res.Header}
			r.raw, _ = io.ReadAll(res.Body)
			conn.Close()
			if err := json.Unmarshal(r.raw, &r.body); err != nil {
				t.Fatalf("%q: %d %s", extra, r.status, r.raw)
			}
			r.wantError(t, 400, quire.CodeInvalidJSON, "")
		}
		mu.Lock()
		defer mu.Unlock()
		if logs.Len() > 0 {
			t.Fatalf("a short body was logged as an error:\n%s", logs.String())
		}
		if after := e.do(http.MethodGet, "/v2/workspace", e.full, nil).body["page_count"]; after != before {
			t.Fatalf("page_count %v → %v", before, after)
		}
	})
}

func TestBodyWithoutContentTypeIsJSON(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st, envOptions{extra: []func(*Server){withProbes}})
		req, _ := http.NewRequest("POST", e.srv.URL+"/v2/probe/users", strings.NewReader(`{"name":"Bo","email":"bo@example.com"}`))
		req.Header.Set("Authorization", "Bearer "+e.full)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 201 || res.Header.Get("X-Request-Id") == "" {
			t.Fatalf("status %d, X-Request-Id %q", res.StatusCode, res.Header.Get("X-Request-Id"))
		}
	})
}

// TestIfMatch: a versioned write goes through with a matching If-Match and answers 409 with
// another (service.CheckVersion's cases are in its own test).
func TestIfMatch(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st, envOptions{extra: []func(*Server){withProbes}})
		r := e.do("PATCH", "/v2/probe/version", e.full, map[string]any{"note": "a"}, "If-Match", `W/"3"`)
		if r.status != 200 || r.header.Get("ETag") != `W/"3"` {
			t.Fatalf("matching If-Match: %d, ETag %q", r.status, r.header.Get("ETag"))
		}
		e.do("PATCH", "/v2/probe/version", e.full, map[string]any{"note": "a"}, "If-Match", `W/"2"`).
			wantError(t, 409, quire.CodeConflict, "")
	})
}

// TestNULRefused: a NUL character in any string or key of a write's body answers 400 at its
// path on both engines (PostgreSQL cannot store it) and writes nothing.
func TestNULRefused(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "P")
		nul := "a\x00b"
		for _, tc := range []struct {
			method, path string
			body         any
			want         string
		}{
			{"POST", "/v2/pages", map[string]any{"properties": titleOf(nul)}, "properties.title[0].text.content"},
			{"PATCH", "/v2/blocks/" + page + "/children", map[string]any{"children": []any{para("ok"), para(nul)}}, "children[1].paragraph.rich_text[0].text.content"},
			{"PUT", "/v2/pages/" + page + "/content/markdown", map[string]any{"markdown": nul}, "markdown"},
			{"POST", "/v2/databases", map[string]any{"parent": pageParent(page), "title": []any{txt("x")},
				"properties": map[string]any{nul: map[string]any{"title": map[string]any{}}}}, "properties." + nul},
			{"POST", "/v2/mind-maps", map[string]any{"parent": pageParent(page), "title": "m", "root": map[string]any{"text": nul}}, "root.text"},
			{"POST", "/v2/search", map[string]any{"query": nul}, "query"},
		} {
			r := e.do(tc.method, tc.path, e.full, tc.body)
			wantDetail(t, r, 400, quire.CodeValidation, tc.want, quire.ReasonInvalidValue)
		}
		if n := len(e.kids(t, page)); n != 0 {
			t.Fatalf("page has %d children after refused writes", n)
		}
		// A body that is no object answers invalid_json, NUL or not (it answered a detail at "").
		for _, body := range []string{`"a\u0000b"`, `["\u0000"]`} {
			r := e.do(http.MethodPatch, "/v2/pages/"+page, e.full, body)
			if r.status != 400 || r.body["code"] != quire.CodeInvalidJSON {
				t.Errorf("body %s: %d %s, want 400 invalid_json", body, r.status, r.raw)
			}
		}
		// An escaped backslash before "u0000" is ordinary text.
		wantOK(t, e.do(http.MethodPost, "/v2/pages", e.full, `{"properties":{"title":[{"text":{"content":"\\u0000"}}]}}`), 200)
	})
}
