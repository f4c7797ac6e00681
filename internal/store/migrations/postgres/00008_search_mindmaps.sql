-- Keyword and semantic search over mind maps: each node's text is an entry of its mind map, as
-- a block's text is an entry of its page (00006_search.sql). Deleted nodes are removed for good,
-- so their entries go with them.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION quire_mind_map_nodes_search() RETURNS trigger LANGUAGE plpgsql AS $f$
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
CREATE TRIGGER mind_map_nodes_search AFTER INSERT OR UPDATE OF text OR DELETE ON mind_map_nodes
    FOR EACH ROW EXECUTE FUNCTION quire_mind_map_nodes_search();

INSERT INTO search_docs (ref, node_id, field, text)
SELECT mind_map_id || ':' || id, mind_map_id, 'body', text FROM mind_map_nodes WHERE text <> '';

-- +goose Down
DELETE FROM search_docs WHERE ref LIKE '%:%';
DROP TRIGGER mind_map_nodes_search ON mind_map_nodes;
DROP FUNCTION quire_mind_map_nodes_search();
