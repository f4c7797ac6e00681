-- The embedding queue's log (docs/performance.md, "Append, second pass"). On PostgreSQL the
-- search triggers add a row to embed_log instead of upserting (and locking until COMMIT) the
-- node's embed_queue row, so that writers of one page share no row there; the indexer folds the
-- log into embed_queue when it claims jobs (store.ClaimEmbedJobs). SQLite has one writer at a
-- time, nothing to gain from it: its triggers keep upserting embed_queue and its log stays empty,
-- so that the fold and the counts (embed_pending) read one SQL text on both engines.
--
-- SQLite's triggers fire once per row, and an append of 100 blocks upserted its page's queue row
-- 100 times (each a row and an index entry rewritten). SQLite's clock is fixed for one
-- statement, so once the first row has queued the page, the row already holds what the others
-- would write; they now look and skip.

-- +goose Up
CREATE TABLE embed_log (
    seq       INTEGER PRIMARY KEY,
    node_id   TEXT NOT NULL,
    queued_ms BIGINT NOT NULL
);

CREATE VIEW embed_pending AS SELECT node_id FROM embed_queue UNION SELECT node_id FROM embed_log;

-- The queue as the next fold will leave it (what a backup carries): a logged node is queued
-- afresh at its latest logged time, attempts and lease reset.
CREATE VIEW embed_queue_folded AS
SELECT q.node_id, COALESCE(l.queued_ms, q.queued_ms) AS queued_ms,
    CASE WHEN l.node_id IS NULL THEN q.attempts ELSE 0 END AS attempts,
    CASE WHEN l.node_id IS NULL THEN q.not_before ELSE 0 END AS not_before
FROM embed_queue q LEFT JOIN (SELECT node_id, MAX(queued_ms) AS queued_ms FROM embed_log GROUP BY node_id) l
    ON l.node_id = q.node_id
UNION ALL
SELECT node_id, MAX(queued_ms), 0, 0 FROM embed_log l
WHERE NOT EXISTS (SELECT 1 FROM embed_queue q WHERE q.node_id = l.node_id) GROUP BY node_id;

DROP TRIGGER search_docs_queue_ai;
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ai AFTER INSERT ON search_docs
WHEN NOT EXISTS (SELECT 1 FROM embed_queue WHERE node_id = new.node_id
    AND queued_ms = CAST(unixepoch('subsec') * 1000 AS INTEGER) AND attempts = 0 AND not_before = 0) BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
DROP TRIGGER search_docs_queue_au;
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_au AFTER UPDATE OF text ON search_docs
WHEN NOT EXISTS (SELECT 1 FROM embed_queue WHERE node_id = new.node_id
    AND queued_ms = CAST(unixepoch('subsec') * 1000 AS INTEGER) AND attempts = 0 AND not_before = 0) BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
DROP TRIGGER search_docs_queue_ad;
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ad AFTER DELETE ON search_docs
WHEN NOT EXISTS (SELECT 1 FROM embed_queue WHERE node_id = old.node_id
    AND queued_ms = CAST(unixepoch('subsec') * 1000 AS INTEGER) AND attempts = 0 AND not_before = 0) BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (old.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER search_docs_queue_ai;
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ai AFTER INSERT ON search_docs BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
DROP TRIGGER search_docs_queue_au;
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_au AFTER UPDATE OF text ON search_docs BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
DROP TRIGGER search_docs_queue_ad;
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ad AFTER DELETE ON search_docs BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (old.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
-- (WHERE true: SQLite would read ON CONFLICT as a join's constraint.)
INSERT INTO embed_queue (node_id, queued_ms)
SELECT node_id, MAX(queued_ms) FROM embed_log WHERE true GROUP BY node_id
ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
DROP VIEW embed_queue_folded;
DROP VIEW embed_pending;
DROP TABLE embed_log;
