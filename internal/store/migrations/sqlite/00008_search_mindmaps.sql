-- Keyword and semantic search over mind maps: each node's text is an entry of its mind map, as
-- a block's text is an entry of its page (00006_search.sql). Deleted nodes are removed for good,
-- so their entries go with them.

-- +goose Up
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

INSERT INTO search_docs (ref, node_id, field, text)
SELECT mind_map_id || ':' || id, mind_map_id, 'body', text FROM mind_map_nodes WHERE text <> '';

-- +goose Down
DELETE FROM search_docs WHERE ref LIKE '%:%';
DROP TRIGGER mind_map_nodes_search_ad;
DROP TRIGGER mind_map_nodes_search_au;
DROP TRIGGER mind_map_nodes_search_ai;
