-- Mind maps: a page with page_type mind_map is a node of the tree of pages; its own row here
-- holds its root node, its settings (canonical JSON) and the number of its nodes, which every
-- edit keeps, so that the 10,000-node limit is checked without counting 10,000 rows. Its nodes
-- are the rows of mind_map_nodes (00002_content.sql).

-- +goose Up
CREATE TABLE mind_maps (
    id         TEXT PRIMARY KEY,
    root_id    TEXT NOT NULL,
    settings   TEXT NOT NULL,
    node_count BIGINT NOT NULL
);

-- +goose Down
DROP TABLE mind_maps;
