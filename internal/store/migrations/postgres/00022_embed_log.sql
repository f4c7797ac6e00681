-- Writers stop locking the embedding queue (docs/performance.md, "Append, second pass").
--
-- The search triggers upserted the node's embed_queue row on every write of its text, and kept
-- that row locked until COMMIT: two appends to one page queued behind each other from their
-- INSERT on, whatever else they did. Now a write only adds a row to embed_log, an append-only
-- log that no writer ever updates, so writers of one page share no row there. The indexer folds
-- the log into embed_queue (one upsert per node, sorted, in the transaction that claims its next
-- jobs: store.ClaimEmbedJobs), so leases, retries and "queued again meanwhile" work on
-- embed_queue exactly as before. embed_pending is what is waiting, folded or not.
--
-- SQLite keeps its row triggers on embed_queue: one writer at a time there, no lock to avoid,
-- and an upsert of one row costs no more than a log row; its embed_log stays empty, so the
-- indexer's fold and the counts read one SQL text on both engines.

-- +goose Up
CREATE TABLE embed_log (
    seq       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_embed_queue() RETURNS trigger LANGUAGE plpgsql AS $f$
DECLARE
    id TEXT;
BEGIN
    IF TG_OP = 'DELETE' THEN id := OLD.node_id; ELSE id := NEW.node_id; END IF;
    INSERT INTO embed_log (node_id, queued_ms)
    VALUES (id, (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT);
    RETURN NULL;
END
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_embed_queue_insert() RETURNS trigger LANGUAGE plpgsql AS $f$
DECLARE
    ms BIGINT := (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT;
BEGIN
    INSERT INTO embed_log (node_id, queued_ms) SELECT DISTINCT node_id, ms FROM new_docs;
    RETURN NULL;
END
$f$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_embed_queue() RETURNS trigger LANGUAGE plpgsql AS $f$
DECLARE
    id TEXT;
BEGIN
    IF TG_OP = 'DELETE' THEN id := OLD.node_id; ELSE id := NEW.node_id; END IF;
    INSERT INTO embed_queue (node_id, queued_ms)
    VALUES (id, (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT)
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
    RETURN NULL;
END
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_embed_queue_insert() RETURNS trigger LANGUAGE plpgsql AS $f$
DECLARE
    ms BIGINT := (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT;
BEGIN
    INSERT INTO embed_queue (node_id, queued_ms)
    SELECT DISTINCT node_id, ms FROM new_docs
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
    RETURN NULL;
END
$f$;
-- +goose StatementEnd

-- What the log still holds is queued the old way.
INSERT INTO embed_queue (node_id, queued_ms)
SELECT node_id, MAX(queued_ms) FROM embed_log GROUP BY node_id
ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
DROP VIEW embed_queue_folded;
DROP VIEW embed_pending;
DROP TABLE embed_log;
