package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/sqlq"
)

// AuthenticateSearch is Authenticate for a keyword search: on PostgreSQL the token's read and
// the search's first statement (search.KeywordAtOnce's, for the query build makes for the
// token) go in one round trip, the statement sent behind the token's read and run after it,
// each on its own snapshot as when they were two round trips. The statement needs the token's
// workspace and reach before the token is read, so it is built for the token this server last
// read under secretHash (a guess of which statement to send, never an answer): its results are
// returned, with answered true, only when the token read in the same round trip is live and is
// that token in that workspace with that scoping; otherwise they were read for nothing and are
// dropped, and the caller searches as after Authenticate. A token not yet seen here, a query
// KeywordAtOnce does not answer in one statement, and SQLite (where a read is no round trip) are
// Authenticate alone. A revoked token is refused by the read of the same round trip: nothing of
// the token is kept between requests but which statement to send.
//
// A search on PostgreSQL was two round trips before its statement's rows (the token, the
// statement): each a write to the backend, a wait and a wake-up on both sides.
func (s *Store) AuthenticateSearch(ctx context.Context, secretHash string, build func(p *quire.Principal) search.Query) (p *quire.Principal, res []search.Result, answered bool, err error) {
	if s.pg == nil {
		p, err = s.Authenticate(ctx, secretHash)
		return p, nil, false, err
	}
	g, ok := s.pg.guesses.get(secretHash)
	if !ok {
		p, err = s.Authenticate(ctx, secretHash)
		if err == nil {
			s.pg.guesses.put(secretHash, p)
		}
		return p, nil, false, err
	}
	q := build(g.principal())
	q.Plans = s.plans
	db := &tokenFirst{pgRowsDB: s.rowsDB(&s.pg.searchTexts, &maxRawSearchTexts), hash: secretHash}
	res, _, ok, err = search.KeywordAtOnce(ctx, db, search.Dialect(s.engine), s.searchNodes(), q)
	switch {
	case err != nil:
		return nil, nil, false, err
	case !db.sent: // no statement: the token alone
		p, err = s.Authenticate(ctx, secretHash)
		return p, nil, false, err
	case db.token == nil:
		s.pg.guesses.drop(secretHash)
		return nil, nil, false, quire.NotFound("token")
	}
	p = db.token
	s.pg.guesses.put(secretHash, p)
	if !ok || g != guessOf(p) {
		return p, nil, false, nil
	}
	return p, res, true, nil
}

// tokenFirst is the read pool as AuthenticateSearch gives it to search.KeywordAtOnce: its one
// statement is sent in a pipeline behind the token's read (authenticate), whose row it keeps.
type tokenFirst struct {
	pgRowsDB
	hash  string
	sent  bool
	token *quire.Principal // the live token read, nil when none was
}

func (t *tokenFirst) QueryRows(ctx context.Context, query string, args []any, row func(sc sqlq.Scanner) error) (bool, error) {
	t.sent = true
	start := func() { t.token = nil }
	readToken := func(r *pgRow) (bool, error) {
		p := &quire.Principal{}
		tok, err := scanToken(scanFunc(func(dest ...any) error { return r.Scan(append(dest, &p.WorkspaceName)...) }))
		if err != nil {
			return false, err
		}
		p.Token, t.token = tok, p
		return false, nil
	}
	err := t.pg.exchangeAll(ctx, start,
		pgStmt{query: authenticate, args: []any{t.hash}, row: readToken},
		pgStmt{query: query, args: args, row: func(r *pgRow) (bool, error) { return true, row(r) }})
	return true, err
}

// QueryContext is never reached (QueryRows takes every statement); it is the pool's.
func (t *tokenFirst) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return nil, errors.New("store: tokenFirst runs its statement through QueryRows")
}

// guess is what AuthenticateSearch builds a search's statement for before the token is read:
// the token, its workspace and whether it is workspace-scoped (its reach otherwise).
type guess struct {
	tokenID, workspaceID string
	scoped               bool
}

func guessOf(p *quire.Principal) guess {
	return guess{p.Token.ID, p.Token.WorkspaceID, p.Token.WorkspaceScoped}
}

// principal is the token a search's statement is built for (its id, workspace and scoping).
func (g guess) principal() *quire.Principal {
	return &quire.Principal{Token: &quire.Token{ID: g.tokenID, WorkspaceID: g.workspaceID, WorkspaceScoped: g.scoped}}
}

// guesses are the tokens this server read last under each secret hash, up to maxGuesses
// hashes (past it a hash not kept is searched as after Authenticate). They choose a statement,
// never an answer: each is checked against the token read in the same round trip.
type guesses struct {
	m sync.Map // secret hash → guess
	n atomic.Int64
}

const maxGuesses = 4096

func (gs *guesses) get(hash string) (guess, bool) {
	v, ok := gs.m.Load(hash)
	if !ok {
		return guess{}, false
	}
	return v.(guess), true
}

func (gs *guesses) put(hash string, p *quire.Principal) {
	g := guessOf(p)
	if v, ok := gs.m.Load(hash); ok {
		if v.(guess) != g {
			gs.m.Store(hash, g)
		}
		return
	}
	if gs.n.Add(1) > maxGuesses {
		gs.n.Add(-1)
		return
	}
	if _, had := gs.m.LoadOrStore(hash, g); had {
		gs.n.Add(-1)
		gs.m.Store(hash, g)
	}
}

func (gs *guesses) drop(hash string) {
	if _, had := gs.m.LoadAndDelete(hash); had {
		gs.n.Add(-1)
	}
}
