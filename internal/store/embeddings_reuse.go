package store

import (
	"context"
	"crypto/sha256"
	"encoding/base64"

	"github.com/quire-dev/quire/internal/search"
)

// ChunkHash names the text of one chunk for reuse of its vector: a vector is reused for the
// same text under the same model only.
func ChunkHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return base64.RawStdEncoding.EncodeToString(h[:16])
}

// ChunkVectors returns node id's stored vectors of model by the hash of their text, for the
// indexer to keep those whose text is unchanged. It reads one node's rows by primary key (at
// most 32).
func (s *Store) ChunkVectors(ctx context.Context, id, model string) (map[string][]float32, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT text_hash, vector FROM embeddings
		WHERE node_id = $1 AND model = $2 AND text_hash <> ''`, id, model)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]float32{}
	for rows.Next() {
		var h string
		var b []byte
		if err := rows.Scan(&h, &b); err != nil {
			return nil, err
		}
		out[h] = search.UnpackVector(nil, b)
	}
	return out, rows.Err()
}
