-- Fewer index writes per content write (docs/performance.md, "Pages and blocks").
--
-- blocks_page went unread: every query of blocks goes by id or by parent_id.
--
-- search_docs is keyed by (node_id, field, ref) instead of ref, and loses the (node_id, field)
-- index that key now covers: the triggers that find an entry by ref know its node and field too.
-- One b-tree per entry instead of two.
--
-- New blocks are indexed once per statement, not once per row: an append of 100 blocks ran the
-- row trigger 100 times, each inserting one entry, and each entry upserted its page's
-- embed_queue row again (100 new versions of one row). Now the blocks' entries go in with one
-- INSERT and the queue takes each node once per such statement. Updates and deletes stay row
-- triggers (their statements touch one block or a few).

-- +goose Up
DROP INDEX blocks_page;

ALTER TABLE search_docs DROP CONSTRAINT search_docs_pkey;
DROP INDEX search_docs_node;
ALTER TABLE search_docs ADD CONSTRAINT search_docs_pkey PRIMARY KEY (node_id, field, ref);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_nodes_search() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO search_docs (ref, node_id, field, text) VALUES (NEW.id, NEW.id, 'title', NEW.title_plain);
    ELSIF TG_OP = 'UPDATE' THEN
        IF NEW.title_plain IS DISTINCT FROM OLD.title_plain THEN
            UPDATE search_docs SET text = NEW.title_plain WHERE node_id = NEW.id AND field = 'title' AND ref = NEW.id;
        END IF;
    ELSE
        DELETE FROM search_docs WHERE node_id = OLD.id AND field = 'title' AND ref = OLD.id;
    END IF;
    RETURN NULL;
END
$f$;
-- +goose StatementEnd

-- A block's entry is under its page_id: written with it, and moved with it below.
DROP TRIGGER blocks_search ON blocks;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_blocks_search() RETURNS trigger LANGUAGE plpgsql AS $f$
DECLARE
    t TEXT;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.content = OLD.content AND NEW.in_trash = OLD.in_trash AND NEW.page_id = OLD.page_id THEN
            RETURN NULL;
        END IF;
    END IF;
    DELETE FROM search_docs WHERE node_id = OLD.page_id AND field = 'body' AND ref = OLD.id;
    IF TG_OP = 'UPDATE' AND NOT NEW.in_trash AND NEW.type NOT IN ('child_page', 'child_database') THEN
        t := quire_content_text(NEW.content);
        IF t <> '' THEN
            INSERT INTO search_docs (ref, node_id, field, text) VALUES (NEW.id, NEW.page_id, 'body', t);
        END IF;
    END IF;
    RETURN NULL;
END
$f$;
-- +goose StatementEnd
CREATE TRIGGER blocks_search AFTER UPDATE OF content, in_trash, page_id OR DELETE ON blocks
    FOR EACH ROW EXECUTE FUNCTION quire_blocks_search();

-- +goose StatementBegin
CREATE FUNCTION quire_blocks_search_insert() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT id, page_id, 'body', t FROM (
        SELECT id, page_id, quire_content_text(content) AS t FROM new_blocks
        WHERE NOT in_trash AND type NOT IN ('child_page', 'child_database')) AS b
    WHERE t <> '';
    RETURN NULL;
END
$f$;
-- +goose StatementEnd
CREATE TRIGGER blocks_search_insert AFTER INSERT ON blocks REFERENCING NEW TABLE AS new_blocks
    FOR EACH STATEMENT EXECUTE FUNCTION quire_blocks_search_insert();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_mind_map_nodes_search() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.text IS NOT DISTINCT FROM OLD.text THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM search_docs WHERE node_id = OLD.mind_map_id AND field = 'body' AND ref = OLD.mind_map_id || ':' || OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.text <> '' THEN
        INSERT INTO search_docs (ref, node_id, field, text) VALUES (NEW.mind_map_id || ':' || NEW.id, NEW.mind_map_id, 'body', NEW.text);
    END IF;
    RETURN NULL;
END
$f$;
-- +goose StatementEnd

-- The queue: new entries once per statement and node (one timestamp for the statement, so a
-- node is upserted once); changed and removed entries per row as before.
DROP TRIGGER search_docs_queue ON search_docs;
CREATE TRIGGER search_docs_queue AFTER UPDATE OF text OR DELETE ON search_docs
    FOR EACH ROW EXECUTE FUNCTION quire_embed_queue();
-- +goose StatementBegin
CREATE FUNCTION quire_embed_queue_insert() RETURNS trigger LANGUAGE plpgsql AS $f$
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
CREATE TRIGGER search_docs_queue_insert AFTER INSERT ON search_docs REFERENCING NEW TABLE AS new_docs
    FOR EACH STATEMENT EXECUTE FUNCTION quire_embed_queue_insert();

-- +goose Down
DROP TRIGGER search_docs_queue_insert ON search_docs;
DROP FUNCTION quire_embed_queue_insert();
DROP TRIGGER search_docs_queue ON search_docs;
CREATE TRIGGER search_docs_queue AFTER INSERT OR UPDATE OF text OR DELETE ON search_docs
    FOR EACH ROW EXECUTE FUNCTION quire_embed_queue();

DROP TRIGGER blocks_search_insert ON blocks;
DROP FUNCTION quire_blocks_search_insert();
DROP TRIGGER blocks_search ON blocks;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_blocks_search() RETURNS trigger LANGUAGE plpgsql AS $f$
DECLARE
    t TEXT;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.content = OLD.content AND NEW.in_trash = OLD.in_trash AND NEW.page_id = OLD.page_id THEN
            RETURN NULL;
        END IF;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM search_docs WHERE ref = OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' AND NOT NEW.in_trash AND NEW.type NOT IN ('child_page', 'child_database') THEN
        t := quire_content_text(NEW.content);
        IF t <> '' THEN
            INSERT INTO search_docs (ref, node_id, field, text) VALUES (NEW.id, NEW.page_id, 'body', t);
        END IF;
    END IF;
    RETURN NULL;
END
$f$;
-- +goose StatementEnd
CREATE TRIGGER blocks_search AFTER INSERT OR UPDATE OF content, in_trash, page_id OR DELETE ON blocks
    FOR EACH ROW EXECUTE FUNCTION quire_blocks_search();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_mind_map_nodes_search() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.text IS NOT DISTINCT FROM OLD.text THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM search_docs WHERE ref = OLD.mind_map_id || ':' || OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.text <> '' THEN
        INSERT INTO search_docs (ref, node_id, field, text) VALUES (NEW.mind_map_id || ':' || NEW.id, NEW.mind_map_id, 'body', NEW.text);
    END IF;
    RETURN NULL;
END
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_nodes_search() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO search_docs (ref, node_id, field, text) VALUES (NEW.id, NEW.id, 'title', NEW.title_plain);
    ELSIF TG_OP = 'UPDATE' THEN
        IF NEW.title_plain IS DISTINCT FROM OLD.title_plain THEN
            UPDATE search_docs SET text = NEW.title_plain WHERE ref = NEW.id;
        END IF;
    ELSE
        DELETE FROM search_docs WHERE ref = OLD.id;
    END IF;
    RETURN NULL;
END
$f$;
-- +goose StatementEnd

ALTER TABLE search_docs DROP CONSTRAINT search_docs_pkey;
ALTER TABLE search_docs ADD CONSTRAINT search_docs_pkey PRIMARY KEY (ref);
CREATE INDEX search_docs_node ON search_docs (node_id, field);

CREATE INDEX blocks_page ON blocks (page_id);
