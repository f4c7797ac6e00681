-- The statement trigger on new blocks skips a block that already has its search entry
-- (docs/performance.md, "PostgreSQL append, thirteenth pass"). The store's INSERT of a page's
-- blocks now writes, in the same statement (a data-modifying WITH), the entries whose text Go
-- reads exactly as quire_content_text does (search.BlockTextPostgres): the function's call per
-- block was about a quarter of the trigger's CPU, an eighth of an append's. The trigger runs
-- after the whole statement, so it sees those entries, and computes only the rest: blocks
-- inserted by any other statement (a restore, a test's plain INSERT), and content Go leaves to
-- it. A block's id is new when it is inserted, so an entry under its id is the one just written.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_blocks_search_insert() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT id, page_id, 'body', t FROM (
        SELECT b.id, b.page_id, quire_content_text(b.content) AS t FROM new_blocks b
        WHERE NOT b.in_trash AND b.type NOT IN ('child_page', 'child_database')
            AND NOT EXISTS (SELECT 1 FROM search_docs d WHERE d.ref = b.id) OFFSET 0) AS b
    WHERE t <> '';
    RETURN NULL;
END
$f$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_blocks_search_insert() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT id, page_id, 'body', t FROM (
        SELECT id, page_id, quire_content_text(content) AS t FROM new_blocks
        WHERE NOT in_trash AND type NOT IN ('child_page', 'child_database') OFFSET 0) AS b
    WHERE t <> '';
    RETURN NULL;
END
$f$;
-- +goose StatementEnd
