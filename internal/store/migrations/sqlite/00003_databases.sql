-- Databases: indexes for record queries (internal/dbquery). A database's records are the nodes
-- whose parent_id is the database; the unsorted order (created time) and the timestamp sorts
-- walk these indexes, reading no table row.

-- +goose Up
CREATE INDEX nodes_records ON nodes (parent_id, in_trash, created_ms, id);
CREATE INDEX nodes_records_edited ON nodes (parent_id, in_trash, edited_ms, id);

-- +goose Down
DROP INDEX nodes_records_edited;
DROP INDEX nodes_records;
