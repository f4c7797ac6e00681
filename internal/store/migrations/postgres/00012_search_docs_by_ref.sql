-- search_docs is keyed by ref again, with its (node_id, field) index, as before 00010; the
-- SQLite twin says why. The block trigger deletes only a block's own body entry: a child_page
-- or child_database block has its page's id, which is also the ref of the page's title entry,
-- and the trigger of 00006 deleted that title whenever the page was renamed, trashed, restored
-- or moved. Titles lost that way before 00010 come back.

-- +goose Up
ALTER TABLE search_docs DROP CONSTRAINT search_docs_pkey;
ALTER TABLE search_docs ADD CONSTRAINT search_docs_pkey PRIMARY KEY (ref);
CREATE INDEX search_docs_node ON search_docs (node_id, field);

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

-- Updates and deletes only (new blocks go through quire_blocks_search_insert of 00010).
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
    DELETE FROM search_docs WHERE ref = OLD.id AND field = 'body';
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

INSERT INTO search_docs (ref, node_id, field, text)
SELECT id, id, 'title', title_plain FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM search_docs d WHERE d.ref = n.id);

-- +goose Down
-- The functions as 00010 left them.
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

ALTER TABLE search_docs DROP CONSTRAINT search_docs_pkey;
DROP INDEX search_docs_node;
ALTER TABLE search_docs ADD CONSTRAINT search_docs_pkey PRIMARY KEY (node_id, field, ref);
