package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quire-dev/quire/internal/httpapi"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// Shape of the seeded workspace, per requested number of blocks.
const (
	blocksPerPage   = 1000 // content pages hold this many top-level blocks (the last one the rest)
	blocksPerAppend = 100  // one seeding request appends this many
	appendTargets   = 16   // empty pages that the measured appends grow
	blocksPerRecord = 100  // one database record per this many blocks (at least minRecords)
	minRecords      = 20
	blocksPerMap    = 10000 // one mind map of 50 nodes per this many blocks (at least one)
	seedWorkers     = 4     // concurrent seeding clients
)

// seeded is what the seeding made, for building the measured requests.
type seeded struct {
	Token    string   `json:"-"`
	Pages    []string `json:"-"` // content pages
	Targets  []string `json:"-"` // append targets
	Database string   `json:"-"`
	Blocks   int      `json:"blocks"`
	NPages   int      `json:"pages"`
	Records  int      `json:"records"`
	MindMaps int      `json:"mind_maps"`
	Embedded int      `json:"embedded_pages"` // content pages left queued for embedding
	SeedSecs float64  `json:"seed_seconds"`
}

// seeder calls the API handler in process, as quire serve --demo does: every write goes through
// the same validation, service and store code as a client's, the search triggers included, but
// without the network and with no indexer running, so each page is embedded once, after.
type seeder struct {
	api   http.Handler
	token string
	done  atomic.Int64 // blocks written, for progress
}

// seedStore opens the store, creates the workspace, its owner and a workspace-scoped token with
// every scope, then (for blocks > 0) the content, and closes the store.
// Content pages past the first embedPages (negative: none) are taken off the embedding queue.
func seedStore(ctx context.Context, cfg store.Config, blocks, embedPages int, stderr io.Writer) (*seeded, error) {
	start := time.Now()
	st, err := store.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	svc := service.New(st, service.Options{BaseURL: "http://127.0.0.1"})
	secret, _, err := newWorkspace(ctx, svc, 0)
	if err != nil {
		return nil, err
	}
	out := &seeded{Token: secret}
	if blocks > 0 {
		api := httpapi.New(httpapi.Config{Service: svc, Logger: slog.New(slog.DiscardHandler), BaseURL: "http://127.0.0.1"})
		s := &seeder{api: api, token: secret}
		if err := s.content(ctx, out, blocks, stderr); err != nil {
			return nil, err
		}
		if err := unqueue(ctx, st, out, embedPages); err != nil {
			return nil, err
		}
	}
	out.SeedSecs = time.Since(start).Seconds()
	return out, nil
}

// newWorkspace creates the workspace, its owner, extra more members, and a workspace-scoped
// token with every scope; it returns the token and the users' ids, the owner's first.
func newWorkspace(ctx context.Context, svc *service.Service, extra int) (token string, users []string, err error) {
	ws, err := svc.CreateWorkspace(ctx, "Bench")
	if err != nil {
		return "", nil, err
	}
	for i := range extra + 1 {
		name, email := "Bench Owner", "owner@bench.example"
		if i > 0 {
			name, email = fmt.Sprintf("Bench Member %d", i), fmt.Sprintf("member%d@bench.example", i)
		}
		u, err := svc.CreateUser(ctx, ws.ID, name, email)
		if err != nil {
			return "", nil, err
		}
		users = append(users, u.ID)
	}
	token, _, err = svc.CreateToken(ctx, service.TokenSpec{WorkspaceID: ws.ID, OwnerID: users[0],
		Name: "bench bot", Scopes: quire.AllScopes, WorkspaceScoped: true})
	return token, users, err
}

// unqueue takes the content pages past the first keep off the embedding queue: the built-in
// model embeds about 40 full chunks a second on two free cores (a few on a busy shared one), and
// a page of 1,000 blocks gives 32, so a million blocks would take hours to index. Those pages stay out of semantic search
// (as if not yet indexed); keyword search and everything else sees them.
func unqueue(ctx context.Context, st *store.Store, sd *seeded, keep int) error {
	if keep < 0 || keep >= len(sd.Pages) {
		sd.Embedded = len(sd.Pages)
		return nil
	}
	sd.Embedded = keep
	return st.InTx(ctx, func(tx *store.Tx) error {
		for _, id := range sd.Pages[keep:] {
			// The log too (PostgreSQL, migration 00022): folded later, it would queue them again.
			for _, q := range []string{`DELETE FROM embed_queue WHERE node_id = $1`, `DELETE FROM embed_log WHERE node_id = $1`} {
				if err := tx.Exec(ctx, q, id); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// call sends one request to the handler and decodes the answer into into (unless nil).
func (s *seeder) call(ctx context.Context, method, path string, body, into any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return s.send(ctx, method, path, b, into)
}

// send is call with the body already encoded.
func (s *seeder) send(ctx context.Context, method, path string, b []byte, into any) error {
	req := httptest.NewRequestWithContext(ctx, method, path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.api.ServeHTTP(rec, req)
	if rec.Code/100 != 2 {
		return fmt.Errorf("seed %s %s: %d %s", method, path, rec.Code, bytes.TrimSpace(rec.Body.Bytes()))
	}
	if into == nil {
		return nil
	}
	return json.Unmarshal(rec.Body.Bytes(), into)
}

// id creates an object and returns its id.
func (s *seeder) id(ctx context.Context, method, path string, body any) (string, error) {
	var obj struct {
		ID string `json:"id"`
	}
	if err := s.call(ctx, method, path, body, &obj); err != nil {
		return "", err
	}
	return obj.ID, nil
}

// parallel runs jobs 0..n-1 on seedWorkers goroutines and returns the first error.
func parallel(ctx context.Context, n int, job func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for range min(seedWorkers, n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := job(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
