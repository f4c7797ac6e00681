-- Semantic search answers fragments, not pages: each vector keeps the text of its chunk (what
-- the answer shows) and the block the chunk starts at (NULL for the title chunk, and for text
-- that is not a block's: mind-map nodes, record values). Every embedded node is queued once so
-- the indexer fills them in; its chunks' texts are unchanged, so their vectors are reused by the
-- text hash and nothing is embedded again. Until then a fragment's text is ''.

-- +goose Up
ALTER TABLE embeddings ADD COLUMN text TEXT NOT NULL DEFAULT '';
ALTER TABLE embeddings ADD COLUMN block_id TEXT;
-- (WHERE true: SQLite would read ON CONFLICT as a join's constraint.)
INSERT INTO embed_queue (node_id, queued_ms) SELECT DISTINCT node_id, 0 FROM embeddings WHERE true
ON CONFLICT (node_id) DO NOTHING;

-- +goose Down
ALTER TABLE embeddings DROP COLUMN block_id;
ALTER TABLE embeddings DROP COLUMN text;
