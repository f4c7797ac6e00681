-- New nodes' title entries in one INSERT per statement instead of one per row (docs/performance.md,
-- "Seeding on PostgreSQL, sixth pass"). A batch of 100 record creates is one INSERT into nodes;
-- the row trigger of 00006 then ran 100 single-row INSERTs into search_docs, and each of those
-- fired search_docs' statement trigger (quire_embed_queue_insert) once more: 200 statements
-- inside the nodes INSERT, about half of its time (pg_stat_user_functions: quire_nodes_search
-- 17 ms of a 36 ms INSERT), all of it under the database's row lock that serialises a
-- database's batches. Now the entries go in with one INSERT from the statement's transition
-- table, as the blocks' do since 00010, and the queue's trigger fires once. The entries are the
-- same rows in the same transaction; updates and deletes stay row triggers (their statements
-- touch one node or a few), and quire_nodes_search keeps its unused INSERT branch so that Down
-- only has to swap the triggers back.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION quire_nodes_search_insert() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    INSERT INTO search_docs (ref, node_id, field, text) SELECT id, id, 'title', title_plain FROM new_nodes;
    RETURN NULL;
END
$f$;
-- +goose StatementEnd
DROP TRIGGER nodes_search ON nodes;
CREATE TRIGGER nodes_search AFTER UPDATE OF title_plain OR DELETE ON nodes
    FOR EACH ROW EXECUTE FUNCTION quire_nodes_search();
CREATE TRIGGER nodes_search_insert AFTER INSERT ON nodes REFERENCING NEW TABLE AS new_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION quire_nodes_search_insert();

-- +goose Down
DROP TRIGGER nodes_search_insert ON nodes;
DROP FUNCTION quire_nodes_search_insert();
DROP TRIGGER nodes_search ON nodes;
CREATE TRIGGER nodes_search AFTER INSERT OR UPDATE OF title_plain OR DELETE ON nodes
    FOR EACH ROW EXECUTE FUNCTION quire_nodes_search();
