-- The embedding queue's log (docs/performance.md, "Append, second pass"). On PostgreSQL the
-- search triggers add a row to embed_log instead of upserting (and locking until COMMIT) the
-- node's embed_queue row, so that writers of one page share no row there; the indexer folds the
-- log into embed_queue when it claims jobs (store.ClaimEmbedJobs). SQLite has one writer at a
-- time, nothing to gain from it: its triggers keep upserting embed_queue and its log stays empty,
-- so that the fold and the counts (embed_pending) read one SQL text on both engines.

-- +goose Up
CREATE TABLE embed_log (
    seq       INTEGER PRIMARY KEY,
    node_id   TEXT NOT NULL,
    queued_ms BIGINT NOT NULL
);

CREATE VIEW embed_pending AS SELECT node_id FROM embed_queue UNION SELECT node_id FROM embed_log;

-- +goose Down
-- (WHERE true: SQLite would read ON CONFLICT as a join's constraint.)
INSERT INTO embed_queue (node_id, queued_ms)
SELECT node_id, MAX(queued_ms) FROM embed_log WHERE true GROUP BY node_id
ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
DROP VIEW embed_pending;
DROP TABLE embed_log;
