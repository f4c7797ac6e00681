package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// TokenPrefix starts every secret, so that a leaked one is easy to recognise and scan for.
const TokenPrefix = "quire_"

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

var errUnauthorized = &quire.Error{Code: quire.CodeUnauthorized,
	Message: "The bearer token is missing, malformed, unknown or revoked."}

// Authenticate returns the principal of an Authorization header value ("Bearer <secret>"),
// or unauthorized. Live tokens are answered from memory for a short while (Options), because a
// store query would cost more than the rest of a small request.
func (s *Service) Authenticate(ctx context.Context, header string) (*quire.Principal, error) {
	scheme, secret, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(secret, TokenPrefix) || len(secret) > 200 {
		return nil, errUnauthorized
	}
	h := hashSecret(secret)
	if p := s.tokens.get(h); p != nil {
		return p, nil
	}
	// The entry's time runs from before the store is asked, not from its answer: a rotation or
	// revocation committed after that moment is then trusted away at most ttl after its commit,
	// which is what `quire token rotate` waits for.
	asked := time.Now()
	p, err := s.store.Authenticate(ctx, h)
	if quire.IsCode(err, quire.CodeNotFound) {
		return nil, errUnauthorized
	}
	if err != nil {
		return nil, err
	}
	s.tokens.put(h, p, asked)
	return p, nil
}

// Reach is the access check every handler makes before touching a page or database (or
// something beneath one): nil when id exists in the caller's workspace and is within the
// token's reach, else not_found, which never tells the two apart.
func (s *Service) Reach(ctx context.Context, p *quire.Principal, id, what string) error {
	if !quire.ValidID(id) {
		return quire.NotFound(what)
	}
	var ok bool
	var err error
	if p.Token.WorkspaceScoped {
		ok, err = s.store.NodeInWorkspace(ctx, p.WorkspaceID(), id)
	} else {
		ok, err = s.store.Reaches(ctx, p.WorkspaceID(), p.Token.ID, id)
	}
	if err != nil {
		return err
	}
	if !ok {
		return quire.NotFound(what)
	}
	return nil
}

// reachTx is Reach inside a write transaction. A transaction never waits for a second
// connection while it holds its locks: with every pooled connection taken by requests waiting
// for those locks, it would wait for ever.
func (s *Service) reachTx(ctx context.Context, tx *store.Tx, p *quire.Principal, id, what string) error {
	if !quire.ValidID(id) {
		return quire.NotFound(what)
	}
	var ok bool
	var err error
	if p.Token.WorkspaceScoped {
		ok, err = tx.NodeInWorkspace(ctx, p.WorkspaceID(), id)
	} else {
		ok, err = tx.Reaches(ctx, p.WorkspaceID(), p.Token.ID, id)
	}
	if err != nil {
		return err
	}
	if !ok {
		return quire.NotFound(what)
	}
	return nil
}

// RequireWorkspaceScoped answers forbidden for a token that reaches only granted content.
func RequireWorkspaceScoped(p *quire.Principal) error {
	if !p.Token.WorkspaceScoped {
		return quire.Forbidden("This endpoint needs a workspace-scoped token.")
	}
	return nil
}

// tokenCache maps secret hashes to principals for ttl.
type tokenCache struct {
	ttl time.Duration
	mu  sync.RWMutex
	m   map[string]cachedPrincipal
}

type cachedPrincipal struct {
	p     *quire.Principal
	until time.Time
}

const tokenCacheMax = 10000

func newTokenCache(ttl time.Duration) *tokenCache {
	return &tokenCache{ttl: ttl, m: map[string]cachedPrincipal{}}
}

func (c *tokenCache) get(hash string) *quire.Principal {
	c.mu.RLock()
	e, ok := c.m[hash]
	c.mu.RUnlock()
	if !ok || time.Now().After(e.until) {
		return nil
	}
	return e.p
}

func (c *tokenCache) put(hash string, p *quire.Principal, asked time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= tokenCacheMax {
		clear(c.m) // rare; everything is re-read from the store on next use
	}
	c.m[hash] = cachedPrincipal{p: p, until: asked.Add(c.ttl)}
}

// forget drops every cached entry of token id.
func (c *tokenCache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for h, e := range c.m {
		if e.p.Token.ID == id {
			delete(c.m, h)
		}
	}
}
