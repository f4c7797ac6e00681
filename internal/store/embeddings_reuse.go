package store

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/search"
)

// ChunkHash names the text of one chunk for reuse of its vector: a vector is reused for the
// same text under the same model only.
func ChunkHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return base64.RawStdEncoding.EncodeToString(h[:16])
}

// ChunkVectors returns node id's stored vectors of model by the hash of their text, for the
// indexer to keep those whose text is unchanged.
func (s *Store) ChunkVectors(ctx context.Context, id, model string) (map[string][]float32, error) {
	byNode, err := s.ChunkVectorsOf(ctx, model, []string{id})
	return byNode[id], err
}

// ChunkVectorsOf is ChunkVectors of several nodes (an indexer batch) in one statement: it reads
// their rows by primary key (at most 32 each). Every node of ids has a map, empty for none.
func (s *Store) ChunkVectorsOf(ctx context.Context, model string, ids []string) (map[string]map[string][]float32, error) {
	out := make(map[string]map[string][]float32, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(ids)+1)
	args = append(args, model)
	var in strings.Builder
	for i, id := range ids {
		out[id] = map[string][]float32{}
		if i > 0 {
			in.WriteString(", ")
		}
		in.WriteString("$" + strconv.Itoa(i+2))
		args = append(args, id)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT node_id, text_hash, vector FROM embeddings
		WHERE node_id IN (`+in.String()+`) AND model = $1 AND text_hash <> ''`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, h string
		var b []byte
		if err := rows.Scan(&id, &h, &b); err != nil {
			return nil, err
		}
		if m := out[id]; m != nil {
			m[h] = search.UnpackVector(nil, b)
		}
	}
	return out, rows.Err()
}
