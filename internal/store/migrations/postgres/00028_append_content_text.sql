-- A block's search text computed once per new block, and with less work per block
-- (docs/performance.md, "Append, fifth pass"). The statement trigger of 00010 selected
-- quire_content_text(content) AS t in a subquery and kept the rows WHERE t <> '': PostgreSQL
-- pulls such a subquery up into its parent and copies the expression into the filter, so the
-- function ran twice per block (an append of 100 paragraphs made 200 calls; with pg_stat_user_
-- functions, more than half of the INSERT's time). OFFSET 0 keeps the subquery as it is written:
-- its rows, each with t computed once, are filtered after.
--
-- quire_content_text returns the same text as before, in the same order, from less work: the
-- old body made a SQL row of every value in the content (each object, string and flag of every
-- rich text element) and tested each with jsonb_typeof; the filter now runs inside the path
-- expression, so only the objects holding a string plain_text or expression come out. In strict
-- mode, .plain_text of a value that is not an object, or of an object without that key, is an
-- error, which a filter takes as unknown: unknown || true is true, unknown || unknown skips the
-- value; .type() of a JSON null is "null". TestContentTextUnchanged (store) compares both
-- bodies on every block type's content.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_content_text(content TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $f$
    SELECT COALESCE(string_agg(COALESCE(v ->> 'plain_text', v ->> 'expression'), ' '), '')
    FROM jsonb_path_query(content::jsonb,
        'strict $.** ? (@.plain_text.type() == "string" || @.expression.type() == "string")') AS v
$f$;
-- +goose StatementEnd

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

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_content_text(content TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $f$
    SELECT COALESCE(string_agg(COALESCE(v ->> 'plain_text', v ->> 'expression'), ' '), '')
    FROM jsonb_path_query(content::jsonb, 'strict $.**') AS v
    WHERE jsonb_typeof(v) = 'object'
      AND (jsonb_typeof(v -> 'plain_text') = 'string' OR jsonb_typeof(v -> 'expression') = 'string')
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION quire_blocks_search_insert() RETURNS trigger LANGUAGE plpgsql AS $f$
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
