package httpapi

import (
	"embed"
	"net/http"
)

// reference holds the API reference page and its renderer, Redoc 2.5.4 (MIT; its notice is
// reference/LICENSE.redoc.txt), embedded so that the page works with no network: the browser
// loads the page, the script and the document from this server and nothing else.
//
//go:embed reference/index.html reference/redoc.standalone.js reference/LICENSE.redoc.txt
var reference embed.FS

// referencePolicy lets the page run the embedded script on the document of this server only:
// Redoc's styles are inline, its search runs in a worker made from a blob, and every fetch,
// font and image stays on this origin (or data: URLs).
const referencePolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'"

// registerReference serves the human-readable reference at /docs; / and /v2 lead there. Like
// the probes it needs no token and is not an operation of the document.
func (s *Server) registerReference() {
	file := func(name, contentType, cache string) http.Handler {
		body, err := reference.ReadFile("reference/" + name)
		if err != nil {
			panic("httpapi: reference asset missing: " + name)
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Content-Type", contentType)
			h.Set("Cache-Control", cache)
			h.Set("Content-Security-Policy", referencePolicy)
			h.Set("X-Content-Type-Options", "nosniff")
			_, _ = w.Write(body)
		})
	}
	s.handle("GET /docs", file("index.html", "text/html; charset=utf-8", "no-cache"))
	s.handle("GET /docs/redoc.standalone.js", file("redoc.standalone.js", "text/javascript; charset=utf-8", "public, max-age=86400"))
	s.handle("GET /docs/LICENSE.redoc.txt", file("LICENSE.redoc.txt", "text/plain; charset=utf-8", "public, max-age=86400"))
	toDocs := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/docs", http.StatusFound)
	})
	s.handle("GET /{$}", toDocs)
	s.handle("GET /v2", toDocs)
}
