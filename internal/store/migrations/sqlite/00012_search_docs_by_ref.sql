-- search_docs is keyed by ref again, with its (node_id, field) index, as before 00010.
--
-- 00010 keyed it by (node_id, field, ref) to save one b-tree per entry, but the search walks a
-- node's entries in that key's order, and an append's ids are random within their millisecond
-- (UUIDv7), so the walk met the rows, and their FTS5 entries, out of rowid order: a two-term
-- search over 20,000 blocks took 6.6 ms of CPU instead of 3.9. Appends gained less than that.
--
-- A child_page or child_database block has its page's id, which is also the ref of the page's
-- title entry: the block triggers of 00006 deleted that title entry whenever the block changed
-- (the page renamed, trashed or restored) or went (the page moved). 00010's key hid that; the
-- triggers here delete only a block's own body entry, and titles lost before 00010 come back.
-- A new block's entry may be there already (store/search_text.go writes an append's entries
-- from Go), so the insert trigger skips blocks that have one, as in 00010.

-- +goose Up
DROP TRIGGER mind_map_nodes_search_ad;
DROP TRIGGER mind_map_nodes_search_au;
DROP TRIGGER mind_map_nodes_search_ai;
DROP TRIGGER blocks_search_ad;
DROP TRIGGER blocks_search_au;
DROP TRIGGER blocks_search_ai;
DROP TRIGGER nodes_search_ad;
DROP TRIGGER nodes_search_au;
DROP TRIGGER nodes_search_ai;
DROP TRIGGER search_docs_queue_ad;
DROP TRIGGER search_docs_queue_au;
DROP TRIGGER search_docs_queue_ai;
DROP TRIGGER search_title_au;
DROP TRIGGER search_title_ad;
DROP TRIGGER search_title_ai;
DROP TRIGGER search_docs_au;
DROP TRIGGER search_docs_ad;
DROP TRIGGER search_docs_ai;
DROP INDEX search_docs_node;

CREATE TABLE search_docs_ref (
    rid     INTEGER PRIMARY KEY,
    ref     TEXT NOT NULL UNIQUE,
    node_id TEXT NOT NULL,
    field   TEXT NOT NULL,
    text    TEXT NOT NULL
);
INSERT INTO search_docs_ref (rid, ref, node_id, field, text) SELECT rid, ref, node_id, field, text FROM search_docs;
DROP TABLE search_docs;
ALTER TABLE search_docs_ref RENAME TO search_docs;
CREATE INDEX search_docs_node ON search_docs (node_id, field);

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
-- +goose StatementBegin
CREATE TRIGGER search_title_ai AFTER INSERT ON search_docs WHEN new.field = 'title' BEGIN
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_ad AFTER DELETE ON search_docs WHEN old.field = 'title' BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_au AFTER UPDATE OF text ON search_docs WHEN old.field = 'title' BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text);
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ai AFTER INSERT ON search_docs BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_au AFTER UPDATE OF text ON search_docs BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ad AFTER DELETE ON search_docs BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (old.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
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
-- +goose StatementBegin
CREATE TRIGGER mind_map_nodes_search_ai AFTER INSERT ON mind_map_nodes WHEN new.text <> '' BEGIN
    INSERT INTO search_docs (ref, node_id, field, text) VALUES (new.mind_map_id || ':' || new.id, new.mind_map_id, 'body', new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mind_map_nodes_search_au AFTER UPDATE OF text ON mind_map_nodes WHEN new.text IS NOT old.text BEGIN
    DELETE FROM search_docs WHERE ref = old.mind_map_id || ':' || old.id;
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT new.mind_map_id || ':' || new.id, new.mind_map_id, 'body', new.text WHERE new.text <> '';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mind_map_nodes_search_ad AFTER DELETE ON mind_map_nodes BEGIN
    DELETE FROM search_docs WHERE ref = old.mind_map_id || ':' || old.id;
END;
-- +goose StatementEnd

-- Titles lost to the block triggers of 00006 (see the top of this file) come back.
INSERT INTO search_docs (ref, node_id, field, text)
SELECT id, id, 'title', title_plain FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM search_docs d WHERE d.ref = n.id);

-- +goose Down
DROP TRIGGER search_docs_ai;
DROP TRIGGER search_docs_ad;
DROP TRIGGER search_docs_au;
DROP TRIGGER search_title_ai;
DROP TRIGGER search_title_ad;
DROP TRIGGER search_title_au;
DROP TRIGGER search_docs_queue_ai;
DROP TRIGGER search_docs_queue_au;
DROP TRIGGER search_docs_queue_ad;
DROP TRIGGER nodes_search_ai;
DROP TRIGGER nodes_search_au;
DROP TRIGGER nodes_search_ad;
DROP TRIGGER blocks_search_ai;
DROP TRIGGER blocks_search_au;
DROP TRIGGER blocks_search_ad;
DROP TRIGGER mind_map_nodes_search_ai;
DROP TRIGGER mind_map_nodes_search_au;
DROP TRIGGER mind_map_nodes_search_ad;
DROP INDEX search_docs_node;

CREATE TABLE search_docs_lean (
    rid     INTEGER PRIMARY KEY,
    ref     TEXT NOT NULL,
    node_id TEXT NOT NULL,
    field   TEXT NOT NULL,
    text    TEXT NOT NULL
);
INSERT INTO search_docs_lean (rid, ref, node_id, field, text) SELECT rid, ref, node_id, field, text FROM search_docs;
DROP TABLE search_docs;
ALTER TABLE search_docs_lean RENAME TO search_docs;
CREATE UNIQUE INDEX search_docs_node ON search_docs (node_id, field, ref);

-- The FTS5 indexes and the embedding queue follow search_docs, as in 00006, 00007 and 00009.
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
-- +goose StatementBegin
CREATE TRIGGER search_title_ai AFTER INSERT ON search_docs WHEN new.field = 'title' BEGIN
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_ad AFTER DELETE ON search_docs WHEN old.field = 'title' BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_au AFTER UPDATE OF text ON search_docs WHEN old.field = 'title' BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text);
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ai AFTER INSERT ON search_docs BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_au AFTER UPDATE OF text ON search_docs BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ad AFTER DELETE ON search_docs BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (old.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd

-- The sources' triggers, as in 00006 and 00008, finding an entry by (node_id, field, ref). A
-- block's entry is under its page_id: written with it, and moved with it by blocks_search_au.
-- +goose StatementBegin
CREATE TRIGGER nodes_search_ai AFTER INSERT ON nodes BEGIN
    INSERT INTO search_docs (ref, node_id, field, text) VALUES (new.id, new.id, 'title', new.title_plain);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER nodes_search_au AFTER UPDATE OF title_plain ON nodes WHEN new.title_plain IS NOT old.title_plain BEGIN
    UPDATE search_docs SET text = new.title_plain WHERE node_id = new.id AND field = 'title' AND ref = new.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER nodes_search_ad AFTER DELETE ON nodes BEGIN
    DELETE FROM search_docs WHERE node_id = old.id AND field = 'title' AND ref = old.id;
END;
-- +goose StatementEnd
-- A new block's entry may be there already: the store writes the entries of the blocks it
-- inserts itself, in one statement, from the text it reads in Go (store/search_text.go).
-- +goose StatementBegin
CREATE TRIGGER blocks_search_ai AFTER INSERT ON blocks
WHEN new.in_trash = FALSE AND new.type NOT IN ('child_page', 'child_database')
    AND NOT EXISTS (SELECT 1 FROM search_docs WHERE node_id = new.page_id AND field = 'body' AND ref = new.id) BEGIN
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
    DELETE FROM search_docs WHERE node_id = old.page_id AND field = 'body' AND ref = old.id;
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT new.id, new.page_id, 'body', t FROM (
        SELECT group_concat(value, ' ') AS t FROM json_tree(new.content)
        WHERE key IN ('plain_text', 'expression') AND type = 'text')
    WHERE t <> '' AND new.in_trash = FALSE AND new.type NOT IN ('child_page', 'child_database');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER blocks_search_ad AFTER DELETE ON blocks BEGIN
    DELETE FROM search_docs WHERE node_id = old.page_id AND field = 'body' AND ref = old.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mind_map_nodes_search_ai AFTER INSERT ON mind_map_nodes WHEN new.text <> '' BEGIN
    INSERT INTO search_docs (ref, node_id, field, text) VALUES (new.mind_map_id || ':' || new.id, new.mind_map_id, 'body', new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mind_map_nodes_search_au AFTER UPDATE OF text ON mind_map_nodes WHEN new.text IS NOT old.text BEGIN
    DELETE FROM search_docs WHERE node_id = old.mind_map_id AND field = 'body' AND ref = old.mind_map_id || ':' || old.id;
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT new.mind_map_id || ':' || new.id, new.mind_map_id, 'body', new.text WHERE new.text <> '';
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER mind_map_nodes_search_ad AFTER DELETE ON mind_map_nodes BEGIN
    DELETE FROM search_docs WHERE node_id = old.mind_map_id AND field = 'body' AND ref = old.mind_map_id || ':' || old.id;
END;
-- +goose StatementEnd

