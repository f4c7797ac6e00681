-- PostgreSQL's twin bounds the pending lists of its trigram GIN indexes. SQLite's FTS5 trigram
-- indexes have no pending list: the upkeep loop fills them in batches behind a mark (00027),
-- and a search reads what is above the mark by substring, bounded by that loop.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
