-- Semantic search. embed_queue lists the pages and databases whose text changed since they were
-- last embedded: triggers on search_docs fill it inside the writing transaction, so it survives
-- restarts and is shared by every server on one database. A background indexer takes entries,
-- embeds the node's text in chunks, and writes one vector per chunk to embeddings, recording the
-- model that made it: vectors of another model are never compared, and a model change queues
-- their nodes again.

-- +goose Up
CREATE TABLE embed_queue (
    node_id   TEXT PRIMARY KEY,
    queued_ms BIGINT NOT NULL,
    -- attempts counts failed tries; the indexer backs off and gives up after a few.
    attempts  INTEGER NOT NULL DEFAULT 0,
    not_before BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX embed_queue_ready ON embed_queue (not_before, queued_ms);

CREATE TABLE embeddings (
    node_id      TEXT NOT NULL,
    chunk        INTEGER NOT NULL,
    workspace_id TEXT NOT NULL,
    model        TEXT NOT NULL,
    dim          INTEGER NOT NULL,
    vector       BYTEA NOT NULL,
    PRIMARY KEY (node_id, chunk)
);
CREATE INDEX embeddings_workspace ON embeddings (workspace_id, model);

-- Everything that exists is embedded once.
INSERT INTO embed_queue (node_id, queued_ms) SELECT DISTINCT node_id, 0 FROM search_docs;

-- +goose StatementBegin
CREATE FUNCTION quire_embed_queue() RETURNS trigger LANGUAGE plpgsql AS $f$
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
CREATE TRIGGER search_docs_queue AFTER INSERT OR UPDATE OF text OR DELETE ON search_docs
    FOR EACH ROW EXECUTE FUNCTION quire_embed_queue();

-- +goose Down
DROP TRIGGER search_docs_queue ON search_docs;
DROP FUNCTION quire_embed_queue();
DROP TABLE embeddings;
DROP TABLE embed_queue;
