-- Each vector keeps a hash of the text it was made from (with the model that made it), so that
-- the indexer embeds again only the chunks of a node whose text changed: an append at the end
-- of a long page changes its last chunk or none (a page's first 200 text blocks are embedded),
-- and re-embedding all of them cost a second of CPU per write. Rows made before have '' and
-- match no chunk.

-- +goose Up
ALTER TABLE embeddings ADD COLUMN text_hash TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE embeddings DROP COLUMN text_hash;
