-- Keyword search. search_docs holds the searchable text of each page or database: one row for
-- its title (ref = the node's id, field 'title') and one per content block that has text
-- (ref = the block's id, field 'body'). Triggers on nodes and blocks keep it in step inside the
-- writing transaction, so every write path (pages, blocks, records, imports) is indexed the
-- same way and nothing is ever searchable before it commits. search_fts is an FTS5 index over
-- it with the trigram tokenizer: matching is by substring in any script (Chinese and Japanese
-- have no spaces between words), case-insensitive.

-- +goose Up
CREATE TABLE search_docs (
    rid     INTEGER PRIMARY KEY,
    ref     TEXT NOT NULL UNIQUE,
    node_id TEXT NOT NULL,
    field   TEXT NOT NULL,
    text    TEXT NOT NULL
);

CREATE VIRTUAL TABLE search_fts USING fts5 (text, content = 'search_docs', content_rowid = 'rid', tokenize = 'trigram');

-- +goose StatementBegin
CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN
    INSERT INTO search_fts (rowid, text) VALUES (new.rid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN
    INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.rid, old.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_au AFTER UPDATE OF text ON search_docs BEGIN
    INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.rid, old.text);
    INSERT INTO search_fts (rowid, text) VALUES (new.rid, new.text);
END;
-- +goose StatementEnd

-- A node's title.
-- +goose StatementBegin
CREATE TRIGGER nodes_search_ai AFTER INSERT ON nodes BEGIN
    INSERT INTO search_docs (ref, node_id, field, text) VALUES (new.id, new.id, 'title', new.title_plain);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER nodes_search_au AFTER UPDATE OF title_plain ON nodes WHEN new.title_plain IS NOT old.title_plain BEGIN
    UPDATE search_docs SET text = new.title_plain WHERE ref = new.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER nodes_search_ad AFTER DELETE ON nodes BEGIN
    DELETE FROM search_docs WHERE ref = old.id;
END;
-- +goose StatementEnd

-- A block's text: the plain_text of every rich-text item it holds (text, captions, table
-- cells, mentions) and an equation's expression. Child page and database blocks repeat the
-- child's title, which is the child's own, not its parent's. Blocks in trash have no entry.
-- +goose StatementBegin
CREATE TRIGGER blocks_search_ai AFTER INSERT ON blocks
WHEN new.in_trash = FALSE AND new.type NOT IN ('child_page', 'child_database') BEGIN
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT new.id, new.page_id, 'body', t FROM (
        SELECT group_concat(value, ' ') AS t FROM json_tree(new.content)
        WHERE key IN ('plain_text', 'expression') AND type = 'text')
    WHERE t <> '';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER blocks_search_au AFTER UPDATE OF content, in_trash, page_id ON blocks
WHEN new.content IS NOT old.content OR new.in_trash IS NOT old.in_trash OR new.page_id IS NOT old.page_id BEGIN
    DELETE FROM search_docs WHERE ref = old.id;
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT new.id, new.page_id, 'body', t FROM (
        SELECT group_concat(value, ' ') AS t FROM json_tree(new.content)
        WHERE key IN ('plain_text', 'expression') AND type = 'text')
    WHERE t <> '' AND new.in_trash = FALSE AND new.type NOT IN ('child_page', 'child_database');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER blocks_search_ad AFTER DELETE ON blocks BEGIN
    DELETE FROM search_docs WHERE ref = old.id;
END;
-- +goose StatementEnd

-- What existed before this migration.
INSERT INTO search_docs (ref, node_id, field, text) SELECT id, id, 'title', title_plain FROM nodes;
INSERT INTO search_docs (ref, node_id, field, text)
SELECT id, page_id, 'body', t FROM (
    SELECT b.id, b.page_id, (SELECT group_concat(value, ' ') FROM json_tree(b.content)
        WHERE key IN ('plain_text', 'expression') AND type = 'text') AS t
    FROM blocks b WHERE b.in_trash = FALSE AND b.type NOT IN ('child_page', 'child_database'))
WHERE t <> '';

-- The order of search results sorted by creation.
CREATE INDEX nodes_created ON nodes (workspace_id, created_ms, id);

-- +goose Down
DROP INDEX nodes_created;
DROP TRIGGER blocks_search_ad;
DROP TRIGGER blocks_search_au;
DROP TRIGGER blocks_search_ai;
DROP TRIGGER nodes_search_ad;
DROP TRIGGER nodes_search_au;
DROP TRIGGER nodes_search_ai;
DROP TRIGGER search_docs_au;
DROP TRIGGER search_docs_ad;
DROP TRIGGER search_docs_ai;
DROP TABLE search_fts;
DROP TABLE search_docs;
