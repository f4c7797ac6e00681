-- SQLite's twin fills its FTS5 trigram indexes in the background, behind a mark (see
-- migrations/sqlite/00027_fts_deferred.sql). PostgreSQL needs no mark: its trigram GIN index
-- (search_docs_lower) already defers the costly part of an insert by itself, in the index's
-- pending list (fastupdate, on by default), which vacuum or the list's size limit merges into
-- the index's main structure and which every search reads, so its answers stay exact.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
