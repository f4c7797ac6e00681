-- A new block's search entry is written by the statement that writes the block, not by a per-row
-- trigger (docs/performance.md, "Append, seventh pass"). The store's insert (store.InsertBlocks)
-- has written the entries of the blocks whose text Go reads (search.BlockText) since 00010, and
-- left blocks_search_ai only the NOT EXISTS probe of search_docs(ref) per row, a fifth of the
-- per-row trigger cost of a 100-block append; it now indexes the blocks Go cannot read by one
-- statement after them (store.indexBlocksSQL, the trigger's own json_tree expression). The one
-- other writer of blocks, a restore, indexes what it loaded by the same statement
-- (store.Tx.IndexBlocks). Updates and deletes keep their triggers: every writer of those is SQL.
-- PostgreSQL's twin changes nothing: its statement trigger runs once per INSERT, not per row.

-- +goose Up
DROP TRIGGER IF EXISTS blocks_search_ai;

-- +goose Down
-- +goose StatementBegin
CREATE TRIGGER blocks_search_ai AFTER INSERT ON blocks
WHEN new.in_trash = FALSE AND new.type NOT IN ('child_page', 'child_database')
    AND NOT EXISTS (SELECT 1 FROM search_docs WHERE ref = new.id) BEGIN
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT new.id, new.page_id, 'body', t FROM (
        SELECT group_concat(value, ' ') AS t FROM json_tree(new.content)
        WHERE key IN ('plain_text', 'expression') AND type = 'text')
    WHERE t <> '';
END;
-- +goose StatementEnd
