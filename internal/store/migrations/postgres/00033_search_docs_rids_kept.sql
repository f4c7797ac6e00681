-- SQLite's twin makes search_docs' rids never reused (AUTOINCREMENT), so its keyword search can
-- keep each FTS5 match's node (see migrations/sqlite/00050_search_docs_rids_kept.sql).
-- PostgreSQL's trigram lookup reads the node from the matching rows themselves: nothing to do.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
