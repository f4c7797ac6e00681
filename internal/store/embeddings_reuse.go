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

// StoredChunks is what a node's stored vectors were made from, for the indexer: the vectors of
// one model by the hash of their text (to reuse those whose text is unchanged), and the layout
// of every stored row, in chunk order (to tell whether the node's vectors would be written
// again exactly as they are: Same).
type StoredChunks struct {
	Vectors map[string][]float32
	rows    []storedChunk
}

// storedChunk is one stored vector's row but the vector.
type storedChunk struct {
	chunk                      int
	model, workspace, hash, at string
}

// Same reports whether saving chunks (each with its Hash) for workspace ws and model would write
// exactly the rows stored now: the same chunks in the same order, each of the same text and
// block, and no row of another model, of another workspace, or without a hash. The indexer then
// only ends the node's job (EmbedSave.Unchanged): an append to a page past what it embeds (its
// first 200 entries, 32 chunks) changes none of its vectors.
func (sc StoredChunks) Same(ws, model string, chunks []EmbedChunk) bool {
	if len(sc.rows) != len(chunks) || len(chunks) == 0 {
		return false
	}
	for i, r := range sc.rows {
		c := chunks[i]
		if r.chunk != i || r.model != model || r.workspace != ws || r.hash == "" || r.hash != c.Hash || r.at != c.BlockID {
			return false
		}
	}
	return true
}

// StoredChunksOf reads what the nodes ids have stored, in one statement by primary key (at most
// 32 rows a node); the vectors of model only are decoded. Every node of ids has an entry, with
// an empty map for none.
func (s *Store) StoredChunksOf(ctx context.Context, model string, ids []string) (map[string]StoredChunks, error) {
	out := make(map[string]StoredChunks, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(ids)+1)
	args = append(args, model)
	var in strings.Builder
	for i, id := range ids {
		out[id] = StoredChunks{Vectors: map[string][]float32{}}
		if i > 0 {
			in.WriteString(", ")
		}
		in.WriteString("$" + strconv.Itoa(i+2))
		args = append(args, id)
	}
	// The vector is read only for model's rows with a hash: the others are never reused.
	rows, err := s.read.QueryContext(ctx, `SELECT node_id, chunk, model, workspace_id, text_hash, COALESCE(block_id, ''),
			CASE WHEN model = $1 AND text_hash <> '' THEN vector END
		FROM embeddings WHERE node_id IN (`+in.String()+`) ORDER BY node_id, chunk`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var r storedChunk
		var b []byte
		if err := rows.Scan(&id, &r.chunk, &r.model, &r.workspace, &r.hash, &r.at, &b); err != nil {
			return nil, err
		}
		sc, ok := out[id]
		if !ok {
			continue
		}
		if b != nil {
			sc.Vectors[r.hash] = search.UnpackVector(nil, b)
		}
		sc.rows = append(sc.rows, r)
		out[id] = sc
	}
	return out, rows.Err()
}
