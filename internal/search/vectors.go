package search

import (
	"context"
	"encoding/binary"
	"math"
	"strings"

	"github.com/quire-dev/quire/internal/sqlq"
)

// VectorQuery selects the vectors one semantic search compares the query with.
type VectorQuery struct {
	Workspace string
	ReachOf   string // when set, only what this (not workspace-scoped) token reaches
	Model     string
	Object    string // quire.ObjectPage or quire.ObjectDatabase, or "" for both
	PageType  string
	Nodes     []string // when set, only these nodes' vectors
}

// ScanVectors streams the vectors of the visible nodes of q to fn, one row at a time: memory
// does not grow with the workspace. Nodes in trash or under trash are left out.
func ScanVectors(ctx context.Context, db Queryer, q VectorQuery, fn func(nodeID string, vec []float32) error) error {
	a := sqlq.NewArgs(q.Workspace, q.Model)
	var sb strings.Builder
	if q.ReachOf != "" {
		sb.WriteString("WITH RECURSIVE " + sqlq.Reach(a, q.ReachOf) + " ")
	}
	ws := "e.workspace_id"
	if q.Nodes != nil {
		// A few nodes' vectors are found by the primary key; without statistics SQLite's planner
		// would walk the workspace index instead, through every vector. An expression is not
		// indexed, on either engine.
		ws = "e.workspace_id || ''"
	}
	sb.WriteString(`SELECT e.node_id, e.vector FROM embeddings e JOIN nodes n ON n.id = e.node_id
		WHERE ` + ws + ` = $1 AND e.model = $2 AND n.in_trash = FALSE AND n.trashed_under = FALSE`)
	if q.ReachOf != "" {
		sb.WriteString(` AND n.id IN (SELECT id FROM reach)`)
	}
	if q.Object != "" {
		sb.WriteString(` AND n.object = ` + a.Arg(q.Object))
	}
	if q.PageType != "" {
		sb.WriteString(` AND n.page_type = ` + a.Arg(q.PageType))
	}
	if q.Nodes != nil {
		sb.WriteString(` AND e.node_id IN (` + sqlq.In(a, q.Nodes) + `)`)
	}
	return scanVectors(ctx, db, sb.String(), a.List, fn)
}

// WorkspaceVectors streams every vector of model in workspace ws, trash and reach aside (the
// caller checks those for the candidates it keeps). With nodes set, only those nodes' vectors.
func WorkspaceVectors(ctx context.Context, db Queryer, ws, model string, nodes []string, fn func(nodeID string, vec []float32) error) error {
	a := sqlq.NewArgs(ws, model)
	q := `SELECT node_id, vector FROM embeddings WHERE workspace_id = $1 AND model = $2`
	if nodes != nil { // by the primary key, as in ScanVectors
		q = `SELECT node_id, vector FROM embeddings WHERE workspace_id || '' = $1 AND model = $2
			AND node_id IN (` + sqlq.In(a, nodes) + `)`
	}
	return scanVectors(ctx, db, q, a.List, fn)
}

// scanVectors runs query, whose rows are a node id and a packed vector, and hands each row to
// fn. The vector's memory is reused from row to row: fn must copy what it keeps.
func scanVectors(ctx context.Context, db Queryer, query string, args []any, fn func(nodeID string, vec []float32) error) error {
	var id string
	return scanPacked(ctx, db, query, args, []any{&id}, func(vec []float32) error { return fn(id, vec) })
}

// scanPacked runs query, whose last column is a packed vector: each row's other columns are
// scanned into cols, then fn gets the vector. Its memory is reused from row to row: fn must
// copy what it keeps.
func scanPacked(ctx context.Context, db Queryer, query string, args, cols []any, fn func(vec []float32) error) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var vec []float32
	var raw []byte
	dest := append(cols[:len(cols):len(cols)], &raw)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		vec = UnpackVector(vec[:0], raw)
		if err := fn(vec); err != nil {
			return err
		}
	}
	return rows.Err()
}

// TermHits reports, for each of the nodes ids, which of terms occur in its title or text (as
// case-insensitive substrings): hits[id][i] for terms[i]. Only those nodes' entries are read,
// node by node through the search_docs_node index, each term's walk stopping at its first
// match. One statement over every entry of the nodes (node_id IN the list, grouped) was what
// PostgreSQL first ran: at 1M blocks in pages of 1,000 its statistics put the list at some
// 73,000 entries (3,100 read), and the plan it chose for that many, two parallel workers, took
// 0.15–0.7 s to start on this shared machine for 10 ms of work (the load run's 2.25 s semantic
// queries). Per node, the estimate is one node's.
func TermHits(ctx context.Context, db Queryer, d Dialect, ids, terms []string) (map[string][]bool, error) {
	out := map[string][]bool{}
	if len(ids) == 0 || len(terms) == 0 {
		return out, nil
	}
	r := &run{d: d}
	a := sqlq.NewArgs()
	var sb strings.Builder
	sb.WriteString("SELECT n.id")
	for _, t := range terms {
		// LIMIT keeps each a subquery run per node: PostgreSQL may not turn it into a join or a
		// hashed scan of every entry with the term. The text is an expression so that the
		// trigram index is left alone: PostgreSQL took it for a rare term, and ANDed each node's
		// entries with every entry that has the term's trigrams, once per node.
		sb.WriteString(`, COALESCE((SELECT 1 FROM search_docs d WHERE d.node_id = n.id AND ` + r.entryContains(r.nodeText(), t, a) + ` LIMIT 1), 0)`)
	}
	sb.WriteString(" FROM nodes n WHERE n.id IN (" + sqlq.In(a, ids) + ")")
	rows, err := db.QueryContext(ctx, sb.String(), a.List...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		flags := make([]int, len(terms))
		dest := []any{&id}
		for i := range flags {
			dest = append(dest, &flags[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		hits := make([]bool, len(terms))
		for i, f := range flags {
			hits[i] = f == 1
		}
		out[id] = hits
	}
	return out, rows.Err()
}

// PackVector is how a vector is stored: little-endian float32s.
func PackVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// UnpackVector appends the vector stored in b (PackVector) to dst.
func UnpackVector(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
}
