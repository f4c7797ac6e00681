-- Keyword search. search_docs holds the searchable text of each page or database: one row for
-- its title (ref = the node's id, field 'title') and one per content block that has text
-- (ref = the block's id, field 'body'). Triggers on nodes and blocks keep it in step inside the
-- writing transaction, so every write path (pages, blocks, records, imports) is indexed the
-- same way and nothing is ever searchable before it commits. A trigram GIN index (pg_trgm, a
-- trusted extension since PostgreSQL 13) answers substring matches in any script: Chinese and
-- Japanese have no spaces between words, which the tsvector parsers need.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE search_docs (
    ref     TEXT PRIMARY KEY,
    node_id TEXT NOT NULL,
    field   TEXT NOT NULL,
    text    TEXT NOT NULL
);
CREATE INDEX search_docs_text ON search_docs USING gin (text gin_trgm_ops);

-- The text of a block's content: the plain_text of every rich-text item it holds (text,
-- captions, table cells, mentions) and an equation's expression.
-- +goose StatementBegin
CREATE FUNCTION quire_content_text(content TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $f$
    SELECT COALESCE(string_agg(COALESCE(v ->> 'plain_text', v ->> 'expression'), ' '), '')
    FROM jsonb_path_query(content::jsonb, 'strict $.**') AS v
    WHERE jsonb_typeof(v) = 'object'
      AND (jsonb_typeof(v -> 'plain_text') = 'string' OR jsonb_typeof(v -> 'expression') = 'string')
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION quire_nodes_search() RETURNS trigger LANGUAGE plpgsql AS $f$
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
CREATE TRIGGER nodes_search AFTER INSERT OR UPDATE OF title_plain OR DELETE ON nodes
    FOR EACH ROW EXECUTE FUNCTION quire_nodes_search();

-- Child page and database blocks repeat the child's title, which is the child's own, not its
-- parent's. Blocks in trash have no entry.
-- +goose StatementBegin
CREATE FUNCTION quire_blocks_search() RETURNS trigger LANGUAGE plpgsql AS $f$
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

-- What existed before this migration.
INSERT INTO search_docs (ref, node_id, field, text) SELECT id, id, 'title', title_plain FROM nodes;
INSERT INTO search_docs (ref, node_id, field, text)
SELECT id, page_id, 'body', t FROM (
    SELECT id, page_id, quire_content_text(content) AS t FROM blocks
    WHERE NOT in_trash AND type NOT IN ('child_page', 'child_database')) AS b
WHERE t <> '';

-- The order of search results sorted by creation.
CREATE INDEX nodes_created ON nodes (workspace_id, created_ms, id);

-- +goose Down
DROP INDEX nodes_created;
DROP TRIGGER blocks_search ON blocks;
DROP TRIGGER nodes_search ON nodes;
DROP FUNCTION quire_blocks_search();
DROP FUNCTION quire_nodes_search();
DROP FUNCTION quire_content_text(TEXT);
DROP TABLE search_docs;
