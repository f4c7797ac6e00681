// Package httpapi is Quire's HTTP surface: huma operations on the standard ServeMux, with the
// access checks, rate limit and idempotency every route shares, and the OpenAPI document built
// from the same definitions.
package httpapi

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/quire-dev/quire/internal/busy"
	"github.com/quire-dev/quire/internal/metrics"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// Version is the version of the API the document describes. The document's info.version adds
// the binary's (Config.Version) as semver build metadata: 2.0.0+quire.v1.4.0.
const Version = "2.0.0"

// maxBody is the largest request body accepted (contract §3).
const maxBody = 1 << 20

// Config is what the server needs beyond the service.
type Config struct {
	Service   *service.Service
	Logger    *slog.Logger
	BaseURL   string  // absolute URL of the server, e.g. http://127.0.0.1:8080
	RateLimit float64 // requests per second per token; 0 turns limiting off
	Metrics   bool    // serve GET /metrics and count every request for it
	// DocTime is the modification time reported as the document's generatedAt.
	DocTime time.Time
	// AccessLog receives one line per request (middleware.go); nil writes them to Logger.
	// Its own logger, so that an operator can turn request lines off or on apart from the
	// application's messages.
	AccessLog *slog.Logger
	// Version is the running binary's version ("v1.4.0", "devel"), shown in /metrics and the
	// document; empty leaves both with the API's version alone.
	Version string
	// Busy counts the requests in flight for the background work to wait on; nil counts none.
	Busy *busy.Gate
}

// Server is the whole HTTP API.
type Server struct {
	cfg     Config
	log     *slog.Logger
	access  *slog.Logger // request lines
	svc     *service.Service
	mux     *http.ServeMux
	api     huma.API
	routes  map[string]route // "METHOD /path" → what the route requires
	labels  map[string]bool  // every pattern on mux but the catch-all: the metrics' route labels
	limiter *limiter
	metrics *metrics.Metrics // nil: off
	doc     *document
	handler http.Handler
	streams streams // open event streams (events_stream.go)
}

// route is what one operation requires of its caller, declared once where it is registered.
type route struct {
	public          bool          // no token needed
	scopes          []quire.Scope // every one of them needed
	workspaceScoped bool          // only workspace-scoped tokens
	// node is the path parameter naming the page or database the handler reads first
	// (readNode): the guard reads it with the token, in one statement (guard.go).
	node string
	// fields is how much of that node the guard reads: all of it unless the handler needs less.
	fields service.NodeFields
	// children: the handler lists the node's children (start_cursor, page_size), and the guard
	// reads that page with the token where the store can do it in the same round trip.
	children bool
	// search: the handler answers a keyword search, which the guard reads with the token where
	// the store can do both in one round trip (POST /v2/search on PostgreSQL).
	search bool
}

// New builds the server with every route registered.
func New(cfg Config) *Server { return newServer(cfg) }

func newServer(cfg Config, extra ...func(*Server)) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, log: cfg.Logger, svc: cfg.Service, mux: http.NewServeMux(), routes: map[string]route{}, labels: map[string]bool{}}
	if cfg.RateLimit > 0 {
		s.limiter = newLimiter(cfg.RateLimit)
	}
	if cfg.Metrics {
		s.metrics = metrics.New(cfg.Service, s.log, cfg.Version)
	}
	s.access = cmp.Or(cfg.AccessLog, s.log)
	installHumaErrors(s.log)

	hc := huma.DefaultConfig("Quire API", docVersion(cfg.Version))
	hc.CreateHooks = nil // no $schema field in bodies, no /schemas routes
	hc.DocsPath, hc.SchemasPath, hc.OpenAPIPath = "", "", ""
	hc.RejectUnknownQueryParameters = true
	hc.Info.Description = "Programmatic access to a workspace's content: pages, blocks, databases, " +
		"views, mind maps, users, search and files. Every route but the two document routes needs a Bearer token."
	// No public license text to link to: an SPDX LicenseRef names it (redocly info-license-strict).
	hc.Info.License = &huma.License{Name: "Proprietary", Identifier: "LicenseRef-Proprietary"}
	hc.Servers = []*huma.Server{{URL: strings.TrimSuffix(cfg.BaseURL, "/"), Description: "This server"}}
	hc.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "A token made with `quire token create`."},
	}
	hc.Formats = rawBodies(s.jsonBodies(hc.Formats))
	s.api = humago.New(&routeMux{s}, hc)

	s.registerUsers()
	s.registerWorkspace()
	s.registerWorkspaceListings()
	s.registerPages()
	s.registerBlocks()
	s.registerMarkdown()
	s.registerSearch()
	s.registerSemanticSearch()
	s.registerViews()
	s.registerFiles()
	s.registerMindMaps()
	s.registerDatabases()
	s.registerRecords()
	s.registerEvents()
	s.registerWebhooks()
	for _, f := range extra {
		f(s)
	}
	s.registerDocument() // last: it describes everything above
	s.registerHealth()
	s.registerReference()
	s.mux.HandleFunc("/", s.unknownRoute)
	s.handler = s.logRequests(s.refuseUncleanPaths(s.mux))
	return s
}

// docVersion is the document's info.version: the API's version, with the binary's as semver
// build metadata (only [0-9A-Za-z-] in dot-separated parts; anything else becomes "-").
func docVersion(binary string) string {
	if binary == "" {
		return Version
	}
	b := []byte(binary)
	for i, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '.') {
			b[i] = '-'
		}
	}
	return Version + "+quire." + strings.Trim(string(b), ".")
}

// refuseUncleanPaths answers 404 not_found for a path with an empty, "." or ".." segment
// (/v2/pages//content/markdown). The ServeMux would answer a 307 to the cleaned path, with an
// HTML body, and a client that follows it re-sends a PATCH to a route it never named.
func (s *Server) refuseUncleanPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p != "/" && p != "" && r.Method != http.MethodConnect {
			clean := path.Clean(p)
			if strings.HasSuffix(p, "/") {
				clean += "/"
			}
			if clean != p {
				writeError(w, r, s.log, &quire.Error{Code: quire.CodeNotFound, Message: "There is no route " + p + " (a path segment is empty, \".\" or \"..\")."})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// routeMux is the ServeMux as huma sees it: every handler huma registers is wrapped in the
// checks its route declared, so they run before huma parses or validates anything
// (contract §2: 401 → 403 → 400 → 404 → 409).
type routeMux struct{ s *Server }

func (m *routeMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	rt, ok := m.s.routes[pattern]
	if !ok {
		panic("httpapi: route registered without declaring its access: " + pattern)
	}
	m.s.handle(pattern, m.s.guard(rt, liftBodyDeadline(http.HandlerFunc(h))))
}

// handle registers a handler on the mux and makes its pattern a route label of the metrics:
// huma's operations come through routeMux, and the few routes that are not operations (file
// bytes, probes, metrics) directly.
func (s *Server) handle(pattern string, h http.Handler) {
	s.labels[pattern] = true
	s.mux.Handle(pattern, h)
}

func (m *routeMux) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.s.mux.ServeHTTP(w, r) }

// register adds one operation: its access requirements, its documentation, its handler.
// op is an operation as most routes declare it: its id, method and path, its tag (the
// reference page's group), summary and description.
func op(id, method, path, tag, summary, description string) huma.Operation {
	return huma.Operation{OperationID: id, Method: method, Path: path, Tags: []string{tag}, Summary: summary, Description: description}
}

func register[I, O any](s *Server, op huma.Operation, rt route, h func(ctx context.Context, in *I) (*O, error)) {
	if f, ok := reflect.TypeFor[I]().FieldByName("Body"); ok && (f.Type.Implements(rawSetterType) || reflect.PointerTo(f.Type).Implements(rawSetterType)) {
		// A reqBody is read by jsonbody, which reports every problem at its path; huma's own
		// validation would answer first, in its words.
		op.SkipValidateBody = true
	}
	if op.MaxBodyBytes == 0 {
		// huma refuses a body that reaches its limit; the contract refuses one over 1 MiB.
		op.MaxBodyBytes = maxBody + 1
	}
	if !rt.public {
		op.Security = []map[string][]string{{"bearer": {}}}
		names := make([]string, len(rt.scopes))
		for i, sc := range rt.scopes {
			names[i] = string(sc)
		}
		op.Extensions = map[string]any{"x-scopes": names}
		if len(names) > 0 {
			op.Description = strings.TrimSpace(op.Description + "\n\nScopes: `" + strings.Join(names, "`, `") + "`.")
		}
		if rt.workspaceScoped {
			op.Description += " Needs a workspace-scoped token."
		}
	} else {
		op.Security = []map[string][]string{}
	}
	op.Errors = errorStatuses(op, rt)
	s.routes[strings.ToUpper(op.Method)+" "+op.Path] = rt
	huma.Register(s.api, op, h)
}

// registerHidden adds a working operation that the document leaves out (the soft deletes).
func registerHidden[I, O any](s *Server, op huma.Operation, rt route, h func(ctx context.Context, in *I) (*O, error)) {
	op.Hidden = true
	register(s, op, rt, h)
}

// errorStatuses lists the error answers an operation documents.
func errorStatuses(op huma.Operation, rt route) []int {
	out := []int{http.StatusBadRequest}
	if !rt.public {
		out = append(out, http.StatusUnauthorized, http.StatusForbidden)
	}
	if strings.Contains(op.Path, "{") || slices.Contains(op.Errors, http.StatusNotFound) { // ids in the path or the body
		out = append(out, http.StatusNotFound)
	}
	if op.Method == http.MethodPost || op.Method == http.MethodPatch || op.Method == http.MethodPut {
		out = append(out, http.StatusConflict, http.StatusRequestEntityTooLarge)
	}
	if !rt.public {
		out = append(out, http.StatusTooManyRequests)
	}
	out = append(out, http.StatusInternalServerError)
	if slices.Contains(op.Errors, http.StatusServiceUnavailable) {
		out = append(out, http.StatusServiceUnavailable)
	}
	return out
}
