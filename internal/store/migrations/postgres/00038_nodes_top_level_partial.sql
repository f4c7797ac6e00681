-- The top-level index holds top-level nodes only (docs/performance.md, "Seeding, eleventh
-- pass"). Every statement that reads it names parent_type = 'workspace' as a literal
-- (LastTopLevelPosition, NextTopLevelPosition, TopLevelPositionBefore, TopLevelNeighbours, the
-- top-level listing), so a partial index serves each of them as the whole one did, with the same
-- columns and so the same plans; a record or a page under a page, nearly every node of a large
-- workspace, no longer writes an entry in it. parent_type stays in the key: without it SQLite
-- sorted the top-level listing in a temporary B-tree instead of walking the index in order.

-- +goose Up
DROP INDEX nodes_top_level;
CREATE INDEX nodes_top_level ON nodes (workspace_id, parent_type, position, id) WHERE parent_type = 'workspace';

-- +goose Down
DROP INDEX nodes_top_level;
CREATE INDEX nodes_top_level ON nodes (workspace_id, parent_type, position, id);
