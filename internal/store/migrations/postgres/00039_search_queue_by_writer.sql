-- SQLite's writers of search entries queue their node themselves (the SQLite twin of this file,
-- docs/performance.md "Append, twelfth pass"). PostgreSQL needs nothing: its new entries are
-- queued once per statement already (search_docs_queue_insert, migration 00010, into embed_log
-- since 00022), and an append past the window takes its log rows back (embed_queue_append.go).

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
