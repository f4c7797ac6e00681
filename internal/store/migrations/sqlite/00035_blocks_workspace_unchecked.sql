-- SQLite's blocks lose the foreign key of workspace_id, as PostgreSQL's did in 00030
-- (docs/performance.md, "Append, seventh pass"). SQLite checked it inside every INSERT, a seek
-- of workspaces' primary key and a constraint counter per block: about a quarter of the CPU of
-- a 100-block INSERT once 00034 took its trigger away (0.98 -> 0.73 ms in a throwaway program
-- at load 15). It guarded nothing the code does not: a block's workspace is always its page's
-- (service/blocks.go), nodes.workspace_id keeps its foreign key, and no statement deletes a
-- workspace or changes its id. SQLite cannot drop a constraint in place, so the table is
-- rebuilt (rowids, columns and their order kept), which drops its index and triggers: they are
-- made again as they were (the children index of 00002, the update and delete triggers of 00012).

-- +goose Up
CREATE TABLE blocks_new (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    page_id      TEXT NOT NULL,
    parent_id    TEXT NOT NULL,
    position     TEXT NOT NULL,
    type         TEXT NOT NULL,
    content      TEXT NOT NULL,
    in_trash     INTEGER NOT NULL DEFAULT FALSE,
    version      BIGINT NOT NULL DEFAULT 1,
    created_ms   BIGINT NOT NULL,
    created_by   TEXT NOT NULL,
    edited_ms    BIGINT NOT NULL,
    edited_by    TEXT NOT NULL,
    has_children INTEGER NOT NULL DEFAULT FALSE
);
INSERT INTO blocks_new (rowid, id, workspace_id, page_id, parent_id, position, type, content, in_trash, version, created_ms, created_by, edited_ms, edited_by, has_children)
    SELECT rowid, id, workspace_id, page_id, parent_id, position, type, content, in_trash, version, created_ms, created_by, edited_ms, edited_by, has_children FROM blocks;
DROP TABLE blocks;
ALTER TABLE blocks_new RENAME TO blocks;
CREATE INDEX blocks_children ON blocks (parent_id, position, id);
-- +goose StatementBegin
CREATE TRIGGER blocks_search_au AFTER UPDATE OF content, in_trash, page_id ON blocks
WHEN new.content IS NOT old.content OR new.in_trash IS NOT old.in_trash OR new.page_id IS NOT old.page_id BEGIN
    DELETE FROM search_docs WHERE ref = old.id AND field = 'body';
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT new.id, new.page_id, 'body', t FROM (
        SELECT group_concat(value, ' ') AS t FROM json_tree(new.content)
        WHERE key IN ('plain_text', 'expression') AND type = 'text')
    WHERE t <> '' AND new.in_trash = FALSE AND new.type NOT IN ('child_page', 'child_database');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER blocks_search_ad AFTER DELETE ON blocks BEGIN
    DELETE FROM search_docs WHERE ref = old.id AND field = 'body';
END;
-- +goose StatementEnd

-- +goose Down
CREATE TABLE blocks_new (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    page_id      TEXT NOT NULL,
    parent_id    TEXT NOT NULL,
    position     TEXT NOT NULL,
    type         TEXT NOT NULL,
    content      TEXT NOT NULL,
    in_trash     INTEGER NOT NULL DEFAULT FALSE,
    version      BIGINT NOT NULL DEFAULT 1,
    created_ms   BIGINT NOT NULL,
    created_by   TEXT NOT NULL,
    edited_ms    BIGINT NOT NULL,
    edited_by    TEXT NOT NULL,
    has_children INTEGER NOT NULL DEFAULT FALSE
);
INSERT INTO blocks_new (rowid, id, workspace_id, page_id, parent_id, position, type, content, in_trash, version, created_ms, created_by, edited_ms, edited_by, has_children)
    SELECT rowid, id, workspace_id, page_id, parent_id, position, type, content, in_trash, version, created_ms, created_by, edited_ms, edited_by, has_children FROM blocks;
DROP TABLE blocks;
ALTER TABLE blocks_new RENAME TO blocks;
CREATE INDEX blocks_children ON blocks (parent_id, position, id);
-- +goose StatementBegin
CREATE TRIGGER blocks_search_au AFTER UPDATE OF content, in_trash, page_id ON blocks
WHEN new.content IS NOT old.content OR new.in_trash IS NOT old.in_trash OR new.page_id IS NOT old.page_id BEGIN
    DELETE FROM search_docs WHERE ref = old.id AND field = 'body';
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT new.id, new.page_id, 'body', t FROM (
        SELECT group_concat(value, ' ') AS t FROM json_tree(new.content)
        WHERE key IN ('plain_text', 'expression') AND type = 'text')
    WHERE t <> '' AND new.in_trash = FALSE AND new.type NOT IN ('child_page', 'child_database');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER blocks_search_ad AFTER DELETE ON blocks BEGIN
    DELETE FROM search_docs WHERE ref = old.id AND field = 'body';
END;
-- +goose StatementEnd
