package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/testdb"
)

// FuzzFileURLs sends generated requests to the signed file routes (PUT of an upload, GET of
// a file) and to upload-url: whatever the id, expiry, signature, content type and body, the
// answer is never a 5xx, and every error is the specification's body.
func FuzzFileURLs(f *testing.F) {
	e := newEnv(f, testdb.SQLite(f))
	up := e.announce(e.full, map[string]any{"filename": "a.txt", "content_type": "text/plain", "size": 5})
	u, _ := url.Parse(up["upload_url"].(string))
	q := u.Query()
	id := up["id"].(string)
	for _, seed := range []struct {
		get                                 bool
		id, expires, sig, contentType, body string
	}{
		{false, id, q.Get("expires"), q.Get("signature"), "text/plain", "hello"},
		{false, id, q.Get("expires"), q.Get("signature"), "text/plain", "hello, world"},
		{false, id, q.Get("expires"), q.Get("signature"), "text/html", "hello"},
		{false, id, "99999999999999999999", q.Get("signature"), "text/plain", ""},
		{true, id, q.Get("expires"), q.Get("signature"), "", ""},
		{true, "..%2f..%2fetc%2fpasswd", "1", "x", "", ""},
		{false, "upload-url", "", "", "application/json", `{"filename":"../a","content_type":"x/y","size":1e300}`},
	} {
		f.Add(seed.get, seed.id, seed.expires, seed.sig, seed.contentType, seed.body)
	}
	h := e.srv.Config.Handler
	f.Fuzz(func(t *testing.T, get bool, id, expires, sig, contentType, body string) {
		method, path := http.MethodPut, "/v2/files/"+url.PathEscape(id)+"/upload"
		if get {
			method, path = http.MethodGet, "/v2/files/"+url.PathEscape(id)+"/content"
		}
		if id == "upload-url" {
			method, path = http.MethodPost, "/v2/files/upload-url"
		}
		req, err := http.NewRequest(method, "http://quire.test"+path+"?"+url.Values{"expires": {expires}, "signature": {sig}}.Encode(),
			strings.NewReader(body))
		if err != nil {
			return
		}
		if contentType != "" && validHeader(contentType) {
			req.Header.Set("Content-Type", contentType)
		}
		if method == http.MethodPost {
			req.Header.Set("Authorization", "Bearer "+e.full)
			req.URL.RawQuery = ""
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %q → %d: %s", method, path, w.Code, w.Body.Bytes())
		}
		if w.Code >= 400 {
			var b map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || b["object"] != "error" || b["status"] != float64(w.Code) {
				t.Fatalf("%s %q → %d with a body that is not the error body: %s", method, path, w.Code, w.Body.Bytes())
			}
		}
	})
}
