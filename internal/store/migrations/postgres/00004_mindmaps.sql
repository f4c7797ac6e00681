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

-- A mind map made before this migration has no nodes: give it a root that reads like its
-- title, as a new one gets (a random version 4 UUID, the first position key of package order).
INSERT INTO mind_map_nodes (mind_map_id, id, parent_id, position, text, color, collapsed)
SELECT n.id,
       gen_random_uuid()::text,
       NULL, 'a0', n.title_plain, 'default', FALSE
FROM nodes n
WHERE n.page_type = 'mind_map'
  AND NOT EXISTS (SELECT 1 FROM mind_map_nodes m WHERE m.mind_map_id = n.id);

INSERT INTO mind_maps (id, root_id, settings, node_count)
SELECT r.mind_map_id, r.id, '{"layout":"right","theme":"default"}',
       (SELECT COUNT(*) FROM mind_map_nodes c WHERE c.mind_map_id = r.mind_map_id)
FROM mind_map_nodes r
WHERE r.parent_id IS NULL
  AND NOT EXISTS (SELECT 1 FROM mind_maps x WHERE x.id = r.mind_map_id);

-- +goose Down
DROP TABLE mind_maps;
