// Package service holds Quire's rules: who may reach what, versions, idempotency, and the
// multi-row writes of each resource. Handlers call it; it calls the store.
package service

import (
	"cmp"
	"context"

	"strings"

	"github.com/quire-dev/quire/internal/cursor"
	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/store"
)

// Options tune a Service; the zero value is the production default.
type Options struct {
	// BaseURL is the server's absolute URL, for the url fields of objects and Markdown links.
	BaseURL string
	// Embedder makes the vectors of semantic search; nil turns semantic search off.
	Embedder Embedder
	// Files keeps uploaded files; nil refuses uploads (see files.go).
	Files filestore.Backend
	// VectorCacheBytes bounds the in-process cache of quantized vectors of semantic search.
	// Default 256 MiB; negative turns the cache off (every query streams from the database).
	VectorCacheBytes int64
	// Webhooks tune the URLs webhooks may call and their deliveries (webhooks.go).
	Webhooks WebhookOptions
}

// Service is the one entry point of every handler.
type Service struct {
	store    *store.Store
	cursors  *cursor.Codec
	baseURL  string
	embedder Embedder
	files    *files
	trees    treeCache    // nodes of recent mind maps (mindmaps_cache.go)
	schemas  schemaCache  // decoded schemas of recently queried databases (query_schema.go)
	vectors  *vectorCache // nil: off
	index    indexCounters
	builds   buildGroup // property builds, stopped and waited for at shutdown (records_shutdown.go)
	webhooks WebhookOptions
	appends  pageTurns // PostgreSQL: one append at the end of a page at a time (blocks_append_turns.go)
}

// New returns a service over st.
func New(st *store.Store, opts Options) *Service {
	svc := &Service{store: st, cursors: cursor.New(st.Secret()),
		baseURL: strings.TrimSuffix(opts.BaseURL, "/"), embedder: opts.Embedder, files: newFiles(st, opts.Files),
		webhooks: opts.Webhooks.withDefaults()}
	if opts.VectorCacheBytes >= 0 {
		svc.vectors = newVectorCache(cmp.Or(opts.VectorCacheBytes, vectorCacheBytes))
	}
	return svc
}

// Store is the service's store, for the few callers (readiness checks) that need it directly.
func (s *Service) Store() *store.Store { return s.store }

// PageURL is the absolute address of page id.
func (s *Service) PageURL(id string) string { return s.baseURL + "/v2/pages/" + id }

// DatabaseURL is the absolute address of database id.
func (s *Service) DatabaseURL(id string) string { return s.baseURL + "/v2/databases/" + id }

// Ping reports whether the store answers.
func (s *Service) Ping(ctx context.Context) error { return s.store.Ping(ctx) }
