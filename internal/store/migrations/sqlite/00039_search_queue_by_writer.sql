-- Each writer of a search entry queues its node for the semantic indexer itself, instead of the
-- per-row trigger search_docs_queue_ai (docs/performance.md, "Append, twelfth pass"). An append of
-- 100 paragraphs wrote 100 entries, and the trigger ran for each of them: a lookup of the page's
-- queue row and an upsert of it, 100 times for one row; and for a page past the indexer's window
-- the append then put the row back as it was (store/embed_queue_append.go). Now the store's Go
-- insert of block entries (InsertBlocks, IndexBlocks) upserts each node once per statement, and
-- writes nothing for a page whose append cannot change what the indexer reads; the triggers that
-- write entries in SQL queue their node in their own body, as search_docs_queue_ai did for them.
-- Changed and removed entries still queue per row (search_docs_queue_au, search_docs_queue_ad).
--
-- The writers of entries, all of them: the store's Go inserts (search_index.go, blocks_insert.go),
-- nodes_search_ai (a node's title), mind_map_nodes_search_ai and mind_map_nodes_search_au (a mind
-- map's nodes), blocks_search_au (a block's new text, in or out of trash, moved to another page).
-- nodes_search_au updates the title's entry in place, which search_docs_queue_au queues.

-- +goose Up
DROP TRIGGER search_docs_queue_ai;

DROP TRIGGER nodes_search_ai;
-- +goose StatementBegin
CREATE TRIGGER nodes_search_ai AFTER INSERT ON nodes BEGIN
    INSERT INTO search_docs (ref, node_id, field, text) VALUES (new.id, new.id, 'title', new.title_plain);
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd

DROP TRIGGER mind_map_nodes_search_ai;
-- +goose StatementBegin
CREATE TRIGGER mind_map_nodes_search_ai AFTER INSERT ON mind_map_nodes WHEN new.text <> '' BEGIN
    INSERT INTO search_docs (ref, node_id, field, text) VALUES (new.mind_map_id || ':' || new.id, new.mind_map_id, 'body', new.text);
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.mind_map_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd

DROP TRIGGER mind_map_nodes_search_au;
-- +goose StatementBegin
CREATE TRIGGER mind_map_nodes_search_au AFTER UPDATE OF text ON mind_map_nodes WHEN new.text IS NOT old.text BEGIN
    DELETE FROM search_docs WHERE ref = old.mind_map_id || ':' || old.id;
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT new.mind_map_id || ':' || new.id, new.mind_map_id, 'body', new.text WHERE new.text <> '';
    INSERT INTO embed_queue (node_id, queued_ms)
    SELECT new.mind_map_id, CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE new.text <> ''
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd

DROP TRIGGER blocks_search_au;
-- +goose StatementBegin
CREATE TRIGGER blocks_search_au AFTER UPDATE OF content, in_trash, page_id ON blocks
WHEN new.content IS NOT old.content OR new.in_trash IS NOT old.in_trash OR new.page_id IS NOT old.page_id BEGIN
    DELETE FROM search_docs WHERE ref = old.id AND field = 'body';
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT new.id, new.page_id, 'body', t FROM (
        SELECT group_concat(value, ' ') AS t FROM json_tree(new.content)
        WHERE key IN ('plain_text', 'expression') AND type = 'text')
    WHERE t <> '' AND new.in_trash = FALSE AND new.type NOT IN ('child_page', 'child_database');
    INSERT INTO embed_queue (node_id, queued_ms)
    SELECT new.page_id, CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE EXISTS (SELECT 1 FROM search_docs WHERE ref = new.id AND field = 'body')
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER blocks_search_au;
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

DROP TRIGGER mind_map_nodes_search_au;
-- +goose StatementBegin
CREATE TRIGGER mind_map_nodes_search_au AFTER UPDATE OF text ON mind_map_nodes WHEN new.text IS NOT old.text BEGIN
    DELETE FROM search_docs WHERE ref = old.mind_map_id || ':' || old.id;
    INSERT INTO search_docs (ref, node_id, field, text)
    SELECT new.mind_map_id || ':' || new.id, new.mind_map_id, 'body', new.text WHERE new.text <> '';
END;
-- +goose StatementEnd

DROP TRIGGER mind_map_nodes_search_ai;
-- +goose StatementBegin
CREATE TRIGGER mind_map_nodes_search_ai AFTER INSERT ON mind_map_nodes WHEN new.text <> '' BEGIN
    INSERT INTO search_docs (ref, node_id, field, text) VALUES (new.mind_map_id || ':' || new.id, new.mind_map_id, 'body', new.text);
END;
-- +goose StatementEnd

DROP TRIGGER nodes_search_ai;
-- +goose StatementBegin
CREATE TRIGGER nodes_search_ai AFTER INSERT ON nodes BEGIN
    INSERT INTO search_docs (ref, node_id, field, text) VALUES (new.id, new.id, 'title', new.title_plain);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ai AFTER INSERT ON search_docs
WHEN NOT EXISTS (SELECT 1 FROM embed_queue WHERE node_id = new.node_id
    AND queued_ms = CAST(unixepoch('subsec') * 1000 AS INTEGER) AND attempts = 0 AND not_before = 0) BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
