// Package search is keyword and semantic search over the store's tables: a keyword query is
// planned (which index lists the matches, or whether the nodes are walked in result order), cut
// into relevance tiers and written as SQL for one dialect; a semantic query is ranked by cosine
// over stored and cached vectors plus a keyword signal. The store opens a read transaction and
// hands it here, as it does for internal/dbquery; the service keeps the rules (reach, trash,
// filters, cursors, the vector cache's coherence across servers).
//
// Keyword search reads these tables, which the store's writes and triggers keep in step with the
// content: search_docs (one entry per title, block text or mind-map node), on SQLite the FTS5
// trigram tables search_fts and search_title_fts and their fts5vocab views, on PostgreSQL the
// pg_trgm GIN indexes on search_docs.text and nodes.title_plain. Semantic search reads
// embeddings.
package search

import (
	"context"
	"database/sql"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/sqlq"
)

// Dialect names the SQL flavour statements are written for; the values equal store.Engine's.
type Dialect string

// The two dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Queryer is what a search needs of a *sql.DB or *sql.Tx. Pass a read transaction for one
// snapshot across a search's statements.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Scanner is a row being read: database/sql's *sql.Rows, or the store's own row on PostgreSQL.
type Scanner = sqlq.Scanner

// eachRow runs query on db and calls row for each of its rows: through db's QueryRows when db
// is a sqlq.RowQueryer (the store on PostgreSQL, for KeywordAtOnce's statement, a search's only
// one there most of the time), else through database/sql.
func eachRow(ctx context.Context, db Queryer, query string, args []any, row func(sc Scanner) error) error {
	return sqlq.EachRow(ctx, db, query, args, row)
}

// NodeRows is how the store reads a row of nodes: its columns (unqualified, separated by commas)
// and the scan of one row of them. Results carry whole nodes, read by the statement that finds
// them rather than by a second one.
type NodeRows struct {
	Columns string
	Scan    func(row interface{ Scan(...any) error }) (*quire.Node, error)
	// PlanEach, when set, goes first among the arguments of PostgreSQL's read of the nodes of
	// a long list of ids (more than byIDNodes): the driver's option to have that statement
	// planned with the list in view at every call (pgx.QueryExecModeCacheDescribe; terms.go).
	PlanEach any
}

// Order is the order of keyword search results.
type Order int

// Orders of keyword search results: by relevance (only with terms), by last edit, by creation.
const (
	ByRelevance Order = iota
	ByEdited
	ByCreated
)

// Key is the keyset position of a result. With terms and ByRelevance, Tier comes first (2: the
// title matches, 1: only content does); then the time of the order and the id. All are columns
// of the node alone, so a walk stays exact while other content changes. Cursors hold a Key as
// JSON; an older cursor's "h" (a count of matching blocks once ranked on, always 0 since) is
// ignored.
type Key struct {
	Tier int    `json:"t,omitempty"`
	Ms   int64  `json:"m,omitempty"`
	ID   string `json:"i"`
}

// Query selects one page of keyword search results.
type Query struct {
	Workspace string
	ReachOf   string   // when set, only what this (not workspace-scoped) token reaches
	Terms     []string // every term must occur in the same entry (title or one block); none: list all
	Object    string   // quire.ObjectPage or quire.ObjectDatabase, or "" for both
	PageType  string   // with ObjectPage: only this page type
	Order     Order
	Ascending bool // for ByEdited and ByCreated
	After     *Key
	Limit     int
	// Samples keeps SQLite's trigram samples across searches (samples.go); nil: each search
	// samples its own. PostgreSQL has none to keep.
	Samples *Samples
	// EntryNodes keeps the node of each FTS5 match across searches on SQLite (entrynodes.go);
	// nil: each search reads them from search_docs.
	EntryNodes *EntryNodes
	// Hints, from KeywordAtOnce, choose Keyword's plan where that statement learned it.
	Hints Hints
	// Plans keeps what KeywordAtOnce learned of first pages' plans across searches on
	// PostgreSQL (plans.go); nil: each first page is estimated.
	Plans *Plans
	// Tuning is for tests, which run every plan over the same content; production leaves it
	// zero.
	Tuning Tuning
}

// Tuning overrides the thresholds that choose a plan. A zero field keeps the default.
type Tuning struct {
	// DenseAfter is how many matching entries make terms dense (denseAfter); when set, as many
	// matching nodes do too (by default a complete list is used whatever its nodes).
	DenseAfter int
	// Probe is how many nodes are checked one by one before the index is asked (probeNodes);
	// negative: none.
	Probe int
	// Walk bounds the entries a walk examines per request (walkEntries), and its first step
	// with it when smaller.
	Walk int
	// ByID is how many listed nodes are read by id at most (byIDNodes); longer lists are narrowed
	// to the page of results first (firstListed).
	ByID int
}

// Result is a node with its place in the results.
type Result struct {
	Node *quire.Node
	Key  Key
}

// Keyword runs a keyword search on db, or with no terms lists every visible node in the chosen
// order. Terms of three characters or more are matched on the trigram index (FTS5 on SQLite,
// pg_trgm on PostgreSQL); shorter ones (a two-character Chinese word, say) on SQLite by the
// trigrams they start (short.go), on PostgreSQL by substring. Nodes in trash or under a node in
// trash are left out. A search that walks the nodes (walk.go) stops after a bounded number of
// entries: then it answers fewer than q.Limit results and the key to go on after (resume), nil
// when the results are complete.
func Keyword(ctx context.Context, db Queryer, d Dialect, nodes NodeRows, q Query) ([]Result, *Key, error) {
	r := &run{db: db, d: d, nodes: nodes, q: q}
	if len(q.Terms) > 0 {
		return r.searchTerms(ctx, q)
	}
	return r.list(ctx)
}

// run is one keyword search: where it reads and what it asks.
type run struct {
	db    Queryer
	d     Dialect
	nodes NodeRows
	q     Query
	// trigrams are the plans of SQLite's two trigram indexes for the terms (planTrigrams), once
	// sampled.
	trigrams *[2]ftsPlan
	// tail are the nodes of the entries above SQLite's index mark that hold the terms, titles'
	// then blocks' (withUnindexed), once read.
	tail *[2]map[string]bool
	// unverified are the block candidates whose text is still to be tested (verify.go).
	unverified unverified
}

// results reads rows of nodes (the columns of nodes.Columns) as results of tier.
func (r *run) results(rows *sql.Rows, tier int) ([]Result, error) {
	return r.resultsVia(rows, rows, tier)
}

// resultsVia is results with each row scanned through row (pglookup.go's countedRow).
func (r *run) resultsVia(rows *sql.Rows, row interface{ Scan(...any) error }, tier int) ([]Result, error) {
	defer rows.Close()
	var out []Result
	for rows.Next() {
		n, err := r.nodes.Scan(row)
		if err != nil {
			return nil, err
		}
		res := Result{Node: n, Key: Key{Tier: tier, Ms: n.EditedMs, ID: n.ID}}
		if r.q.Order == ByCreated {
			res.Key.Ms = n.CreatedMs
		}
		out = append(out, res)
	}
	return out, rows.Err()
}
