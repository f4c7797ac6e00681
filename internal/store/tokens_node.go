package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/quire-dev/quire/internal/quire"
)

// NodeFields is what AuthenticateNode reads, as two column lists: Token, of the token (t.…;
// w.name, its workspace's name, joins the workspaces), and Node, of the node (of nodeColumns).
// An empty list is every column of its side, so the zero value is AllFields. Each column left
// out is driver work saved per request (on PostgreSQL each value converted twice; on SQLite a
// read into a field), and the workspaces join is left out with w.name: workspaces are never
// deleted, and the node is joined on the token's workspace, so the join checks nothing.
type NodeFields struct {
	Token, Node string
}

var (
	// AllFields is every column of the token and of the node, and the workspace's name.
	AllFields = NodeFields{}
	// PageFields is what a page GET uses: the token's id, workspace, owner, scopes and
	// workspace_scoped (what the guard and the reach check read; its name, integration, times
	// and workspace name stay empty), and what a page's answer shows of the node (pageColumns:
	// all but position, title_plain, description, is_inline and trashed_under; its id and
	// workspace are the ones asked for and the token's).
	PageFields = NodeFields{Token: "t.id, t.workspace_id, t.owner_id, t.scopes, t.workspace_scoped", Node: pageColumns}
)

// pageColumns are the node's columns a page's answer (and a record's rendering) reads.
const pageColumns = `object, page_type, parent_type, parent_id, title, properties, icon, cover, in_trash, version,
	created_ms, created_by, edited_ms, edited_by`

// joinedTokenColumns are every column of a token AuthenticateNode may read, and its
// workspace's name.
const joinedTokenColumns = `t.id, t.workspace_id, t.owner_id, t.integration_id, t.name, t.scopes, t.workspace_scoped,
	t.created_ms, t.revoked_ms, w.name`

// nodeScan is one joined row as it is scanned: the token, the node, and the values that are
// turned into theirs after the scan.
type nodeScan struct {
	p                               *quire.Principal
	t                               quire.Token
	n                               quire.Node
	scopes                          string
	parent                          sql.NullString
	title, props, desc, icon, cover []byte
}

// nodeDests gives each column AuthenticateNode may read its place in a nodeScan.
var nodeDests = map[string]func(r *nodeScan) any{
	"t.id": func(r *nodeScan) any { return &r.t.ID }, "t.workspace_id": func(r *nodeScan) any { return &r.t.WorkspaceID },
	"t.owner_id": func(r *nodeScan) any { return &r.t.OwnerID }, "t.integration_id": func(r *nodeScan) any { return &r.t.IntegrationID },
	"t.name": func(r *nodeScan) any { return &r.t.Name }, "t.scopes": func(r *nodeScan) any { return &r.scopes },
	"t.workspace_scoped": func(r *nodeScan) any { return &r.t.WorkspaceScoped },
	"t.created_ms":       func(r *nodeScan) any { return &r.t.CreatedMs }, "t.revoked_ms": func(r *nodeScan) any { return &r.t.RevokedMs },
	"w.name": func(r *nodeScan) any { return &r.p.WorkspaceName },
	"n.id":   func(r *nodeScan) any { return &r.n.ID }, "n.workspace_id": func(r *nodeScan) any { return &r.n.WorkspaceID },
	"n.object": func(r *nodeScan) any { return &r.n.Object }, "n.page_type": func(r *nodeScan) any { return &r.n.PageType },
	"n.parent_type": func(r *nodeScan) any { return &r.n.ParentType }, "n.parent_id": func(r *nodeScan) any { return &r.parent },
	"n.position": func(r *nodeScan) any { return &r.n.Position }, "n.title": func(r *nodeScan) any { return &r.title },
	"n.title_plain": func(r *nodeScan) any { return &r.n.TitlePlain }, "n.properties": func(r *nodeScan) any { return &r.props },
	"n.description": func(r *nodeScan) any { return &r.desc }, "n.icon": func(r *nodeScan) any { return &r.icon },
	"n.cover": func(r *nodeScan) any { return &r.cover }, "n.is_inline": func(r *nodeScan) any { return &r.n.IsInline },
	"n.in_trash": func(r *nodeScan) any { return &r.n.InTrash }, "n.trashed_under": func(r *nodeScan) any { return &r.n.TrashedUnder },
	"n.version": func(r *nodeScan) any { return &r.n.Version }, "n.created_ms": func(r *nodeScan) any { return &r.n.CreatedMs },
	"n.created_by": func(r *nodeScan) any { return &r.n.CreatedBy }, "n.edited_ms": func(r *nodeScan) any { return &r.n.EditedMs },
	"n.edited_by": func(r *nodeScan) any { return &r.n.EditedBy },
}

// joinedRead is AuthenticateNode's statement for one NodeFields and where its columns go.
type joinedRead struct {
	query string
	// many is the same read of several tokens and nodes in one statement, on PostgreSQL only
	// (joinedMany): the reads requests ask for while one is in flight go together.
	many  string
	dests []func(r *nodeScan) any
}

// joinedReads caches each NodeFields' joinedRead per engine: bounded by the callers' lists,
// two today.
var joinedReads sync.Map

type joinedReadKey struct {
	fields NodeFields
	engine Engine
}

// read returns f's statement on engine, built the first time it is asked for.
func (f NodeFields) read(engine Engine) (*joinedRead, error) {
	key := joinedReadKey{f, engine}
	if r, ok := joinedReads.Load(key); ok {
		return r.(*joinedRead), nil
	}
	tok, node := cmp.Or(f.Token, joinedTokenColumns), qualify("n.", cmp.Or(f.Node, nodeColumns))
	r := &joinedRead{}
	join := ""
	for _, c := range strings.Split(tok+", "+node, ",") {
		c = strings.TrimSpace(c)
		d, ok := nodeDests[c]
		if !ok {
			return nil, fmt.Errorf("store: AuthenticateNode cannot read column %q", c)
		}
		if c == "w.name" {
			join = "JOIN workspaces w ON w.id = t.workspace_id"
		}
		r.dests = append(r.dests, d)
	}
	r.query = authenticateNodeQuery(engine, tok, join, node, "$1", "$2")
	if engine == Postgres {
		r.many = joinedManyQuery(tok, join, node)
	}
	joinedReads.Store(key, r)
	return r, nil
}

// authenticateNodeQuery is the token's columns (and join) as authenticate reads them, the
// token of secret hash hash (a placeholder or a column), joined with node id of the token's
// workspace (columns of it, qualified n.), provided the token
// reaches it: a workspace-scoped token reaches every node of its workspace; any other walks up
// from the node on the nodes' primary key and probes its grants on theirs, as reachesQuery
// does. The CASE keeps that walk from running for a workspace-scoped token: both engines
// evaluate a CASE branch only when it is taken. No row: the token is not live, or the node is
// absent or out of its reach.
//
// On PostgreSQL the walk is the function quire_token_reaches (migration 00036), not a
// recursive CTE of the statement: PostgreSQL sets up every subplan of a statement at each
// execution, taken or not, and the walk's (a recursive union of two index scans, a hash join
// with grants) was a fifth to a third of the backend's CPU of a page GET. SQLite compiles the
// statement once per connection and runs the CTE only when the branch is taken.
func authenticateNodeQuery(engine Engine, tokenColumns, join, columns, hash, id string) string {
	with, reach := `
		WITH RECURSIVE up (id, parent_id, depth) AS (
			SELECT id, parent_id, 0 FROM nodes WHERE id = `+id+`
			UNION ALL
			SELECT p.id, p.parent_id, up.depth + 1 FROM nodes p JOIN up ON p.id = up.parent_id
			WHERE up.depth < `+strconv.Itoa(maxDepth)+`
		)`, `EXISTS (SELECT 1 FROM up WHERE EXISTS (SELECT 1 FROM grants g WHERE g.token_id = t.id AND g.target_id = up.id))`
	if engine == Postgres {
		with, reach = "", "quire_token_reaches(t.id, "+id+")"
	}
	return with + `
		SELECT ` + tokenColumns + `, ` + columns + `
		FROM tokens t ` + join + `
		JOIN nodes n ON n.id = ` + id + ` AND n.workspace_id = t.workspace_id
		WHERE t.secret_hash = ` + hash + ` AND t.revoked_ms = 0 AND CASE WHEN t.workspace_scoped THEN TRUE
			ELSE ` + reach + `
		END`
}

// AuthenticateNode is Authenticate and, in the same statement, node id (the part of it fields
// names) when the token reaches it: the request that names one node reads its token, its reach
// and its node in one read on two or three primary or unique keys (one read transaction on SQLite, one
// round trip on PostgreSQL) instead of two or three. The node is nil, with a nil error, when
// the token is live but the node is absent, in another workspace or out of the token's reach:
// the joined read found no row, and the token is then read alone to tell that from an unknown
// or revoked token (unauthorized). Nothing is kept between requests: a revoke or a withdrawn
// grant through any server is seen by the next request's read. On PostgreSQL the reads that
// requests ask for while one is in flight share the next round trip (joinedQueue).
func (s *Store) AuthenticateNode(ctx context.Context, secretHash, id string, fields NodeFields) (*quire.Principal, *quire.Node, error) {
	read, err := fields.read(s.engine)
	if err != nil {
		return nil, nil, err
	}
	if s.pg != nil {
		sc, err := s.pg.joined(ctx, read, secretHash, id)
		return s.joined(ctx, sc, secretHash, id, err)
	}
	sc := &nodeScan{p: &quire.Principal{}}
	err = s.hotRow(ctx, read.query, []string{secretHash, id}, func(row interface{ Scan(...any) error }) error {
		return read.scan(sc, row)
	})
	return s.joined(ctx, sc, secretHash, id, err)
}

// scan reads one joined row into sc.
func (read *joinedRead) scan(sc *nodeScan, row interface{ Scan(...any) error }) error {
	dest := make([]any, len(read.dests))
	for i, d := range read.dests {
		dest[i] = d(sc)
	}
	return row.Scan(dest...)
}

// joined is AuthenticateNode's answer from its joined read's outcome: sc read, or err (no
// row: the token is read alone).
func (s *Store) joined(ctx context.Context, sc *nodeScan, secretHash, id string, err error) (*quire.Principal, *quire.Node, error) {
	if errors.Is(err, sql.ErrNoRows) {
		p, err := s.Authenticate(ctx, secretHash)
		return p, nil, err
	}
	if err != nil {
		return nil, nil, err
	}
	p, t, n := sc.p, &sc.t, &sc.n
	t.Scopes = parseScopes(sc.scopes)
	p.Token = t
	n.Title, n.Properties, n.Description = sc.title, sc.props, sc.desc
	withParentAndFiles(n, sc.parent, sc.icon, sc.cover)
	n.ID, n.WorkspaceID = id, t.WorkspaceID // the read's own keys: n.id = $2, n.workspace_id = t.workspace_id
	return p, n, nil
}
