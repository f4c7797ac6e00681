package httpapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestAnswerWrites: a JSON answer beyond net/http's 2 KB buffer goes out with its
// Content-Length (not chunked), the same bytes as a HEAD's length announces; a short one keeps
// the length net/http gives it; error answers, request ids and the access line are unchanged.
func TestAnswerWrites(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.newPage("Long")
		children := make([]map[string]any, 40)
		for i := range children {
			children[i] = map[string]any{"type": "paragraph", "paragraph": map[string]any{"rich_text": []any{
				map[string]any{"text": map[string]any{"content": fmt.Sprintf("paragraph %d of a page long enough to be sent in more than one write", i)}}}}}
		}
		if r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": children}); r.status != http.StatusOK {
			t.Fatalf("append: %d %s", r.status, r.raw)
		}
		for _, c := range []struct {
			name, path string
			long       bool
		}{
			{"children", "/v2/blocks/" + page + "/children?page_size=100", true},
			{"page", "/v2/pages/" + page, false},
		} {
			get := e.raw(t, http.MethodGet, c.path)
			if get.StatusCode != http.StatusOK || !json.Valid(get.body) || !strings.HasSuffix(string(get.body), "}\n") {
				t.Fatalf("%s: %d %s", c.name, get.StatusCode, get.body)
			}
			if c.long != (len(get.body) > 2048) {
				t.Fatalf("%s: %d bytes, want long=%v", c.name, len(get.body), c.long)
			}
			if get.TransferEncoding != nil || get.ContentLength != int64(len(get.body)) {
				t.Errorf("%s: Transfer-Encoding %v, Content-Length %d; want no chunking and the body's %d bytes", c.name, get.TransferEncoding, get.ContentLength, len(get.body))
			}
			if id := get.Header.Get("X-Request-Id"); !strings.HasPrefix(id, "req_") {
				t.Errorf("%s: X-Request-Id %q", c.name, id)
			}
			head := e.raw(t, http.MethodHead, c.path)
			if head.StatusCode != http.StatusOK || len(head.body) != 0 || (c.long && head.ContentLength != int64(len(get.body))) {
				t.Errorf("%s: HEAD %d, %d bytes, Content-Length %d; want 200, none, %d", c.name, head.StatusCode, len(head.body), head.ContentLength, len(get.body))
			}
		}
		r := e.do(http.MethodGet, "/v2/blocks/"+page+"x/children", e.full, nil)
		r.wantError(t, http.StatusBadRequest, "validation_error", "")
		if r.header.Get("Content-Length") != strconv.Itoa(len(r.raw)) {
			t.Errorf("error answer: Content-Length %q for %d bytes", r.header.Get("Content-Length"), len(r.raw))
		}
	})
}

// rawAnswer is an answer with its transfer details, as the client saw them.
type rawAnswer struct {
	*http.Response
	body []byte
}

func (e *env) raw(t *testing.T, method, path string) rawAnswer {
	t.Helper()
	req, _ := http.NewRequest(method, e.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+e.full)
	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var sb strings.Builder
	if _, err := bufio.NewReader(res.Body).WriteTo(&sb); err != nil {
		t.Fatal(err)
	}
	return rawAnswer{res, []byte(sb.String())}
}

// TestStatusHeldBack: the middleware holds a status back only until the body, a flush or the
// handler's end: a flushed status reaches the client while the handler still runs (streams are
// not buffered), headers set before the body go out with it, a bodiless status is sent at the
// end, and a second status after the first is ignored.
func TestStatusHeldBack(t *testing.T) {
	release := make(chan struct{})
	routes := func(s *Server) {
		s.mux.HandleFunc("GET /v2/test/flushed", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusAccepted)
			if err := http.NewResponseController(w).Flush(); err != nil {
				t.Errorf("flush: %v", err)
			}
			<-release
			fmt.Fprint(w, "after")
		})
		s.mux.HandleFunc("GET /v2/test/empty", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		})
		s.mux.HandleFunc("GET /v2/test/twice", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusCreated)
			w.Header().Set("X-Late", "yes") // before the body: still sent
			w.WriteHeader(http.StatusTeapot)
			fmt.Fprint(w, "body")
		})
	}
	e := newEnv(t, testdb.SQLite(t), envOptions{extra: []func(*Server){routes}})
	got := make(chan *http.Response, 1)
	go func() {
		res, err := e.srv.Client().Get(e.srv.URL + "/v2/test/flushed")
		if err != nil {
			t.Error(err)
			close(got)
			return
		}
		got <- res
	}()
	select {
	case res := <-got:
		close(release)
		if res == nil {
			t.FailNow()
		}
		defer res.Body.Close()
		var sb strings.Builder
		_, _ = bufio.NewReader(res.Body).WriteTo(&sb)
		if res.StatusCode != http.StatusAccepted || sb.String() != "after" {
			t.Fatalf("flushed: %d %q", res.StatusCode, sb.String())
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("a flushed status did not reach the client while its handler ran")
	}
	for path, want := range map[string]struct {
		status int
		body   string
		late   string
	}{"/v2/test/empty": {http.StatusNoContent, "", ""}, "/v2/test/twice": {http.StatusCreated, "body", "yes"}} {
		res := e.raw(t, http.MethodGet, path)
		if res.StatusCode != want.status || string(res.body) != want.body || res.Header.Get("X-Late") != want.late {
			t.Errorf("%s: %d %q X-Late %q; want %d %q %q", path, res.StatusCode, res.body, res.Header.Get("X-Late"), want.status, want.body, want.late)
		}
	}
}
