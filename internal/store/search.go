package store

import (
	"context"
	"database/sql"

	"github.com/quire-dev/quire/internal/search"
)

// nodeRows is how internal/search reads the nodes it answers.
var nodeRows = search.NodeRows{Columns: nodeColumns, Scan: scanNode}

// Search runs a keyword search (internal/search) inside one read transaction, so that the
// statements of its plan (the index lookups, the walk's steps) see one snapshot.
func (s *Store) Search(ctx context.Context, q search.Query) ([]search.Result, *search.Key, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	res, resume, err := search.Keyword(ctx, tx, search.Dialect(s.engine), nodeRows, q)
	if err != nil {
		return nil, nil, err
	}
	return res, resume, tx.Commit()
}

// ScanVectors streams the vectors of the visible nodes of q to fn (search.ScanVectors).
func (s *Store) ScanVectors(ctx context.Context, q search.VectorQuery, fn func(nodeID string, vec []float32) error) error {
	return search.ScanVectors(ctx, s.read, q, fn)
}

// WorkspaceVectors streams every vector of model in workspace ws, or of nodes when set
// (search.WorkspaceVectors).
func (s *Store) WorkspaceVectors(ctx context.Context, ws, model string, nodes []string, fn func(nodeID string, vec []float32) error) error {
	return search.WorkspaceVectors(ctx, s.read, ws, model, nodes, fn)
}

// TermHits reports which of terms occur in each of the nodes ids (search.TermHits).
func (s *Store) TermHits(ctx context.Context, ids, terms []string) (map[string][]bool, error) {
	return search.TermHits(ctx, s.read, search.Dialect(s.engine), ids, terms)
}

// ScanFragments hands fn each chunk of model of nodes, with its text, block and vector
// (search.ScanFragments).
func (s *Store) ScanFragments(ctx context.Context, ws, model string, nodes []string, fn func(f search.Fragment, vec []float32) error) error {
	return search.ScanFragments(ctx, s.read, ws, model, nodes, fn)
}
