-- Content: the tree of pages and databases (nodes), blocks, views, database record values,
-- mind-map nodes and files. Orders are fractional text keys compared bytewise, so an insert
-- between two siblings never renumbers the others and every ordered read is a keyset walk of
-- an index. JSON columns are TEXT on both engines: only Quire writes them (canonical JSON),
-- and reading back the exact bytes keeps answers identical across engines.

-- +goose Up
-- A node is a page (page_type page, folder or mind_map; also a database record) or a database.
-- parent_type is workspace (parent_id NULL), page_id or database_id.
CREATE TABLE nodes (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    object       TEXT NOT NULL,
    page_type    TEXT NOT NULL,
    parent_type  TEXT NOT NULL,
    parent_id    TEXT,
    position     TEXT NOT NULL,
    title        TEXT NOT NULL,
    title_plain  TEXT NOT NULL DEFAULT '',
    properties   TEXT NOT NULL,
    description  TEXT NOT NULL,
    icon         TEXT,
    cover        TEXT,
    is_inline    INTEGER NOT NULL DEFAULT FALSE,
    in_trash     INTEGER NOT NULL DEFAULT FALSE,
    -- trashed_under: some ancestor is in trash. Kept up to date by trash, restore and move, so
    -- that listings and search hide a trashed page's descendants without walking up per row.
    trashed_under INTEGER NOT NULL DEFAULT FALSE,
    version      BIGINT NOT NULL DEFAULT 1,
    created_ms   BIGINT NOT NULL,
    created_by   TEXT NOT NULL,
    edited_ms    BIGINT NOT NULL,
    edited_by    TEXT NOT NULL
);
CREATE INDEX nodes_children ON nodes (parent_id, position, id);
CREATE INDEX nodes_top_level ON nodes (workspace_id, parent_type, position, id);
CREATE INDEX nodes_recent ON nodes (workspace_id, edited_ms, id);
CREATE INDEX nodes_kind_recent ON nodes (workspace_id, page_type, edited_ms, id);
CREATE INDEX nodes_trash ON nodes (workspace_id, edited_ms, id) WHERE in_trash = TRUE;

-- Blocks of a page's content. page_id is the node whose content the block is (for access and
-- export); parent_id is that node or another block. A child page or database also has a block
-- here with the node's own id (child_page / child_database), which gives it its place.
CREATE TABLE blocks (
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
    edited_by    TEXT NOT NULL
);
CREATE INDEX blocks_children ON blocks (parent_id, position, id);
CREATE INDEX blocks_page ON blocks (page_id);

CREATE TABLE views (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    database_id  TEXT NOT NULL,
    position     TEXT NOT NULL,
    name         TEXT NOT NULL,
    type         TEXT NOT NULL,
    spec         TEXT NOT NULL,
    in_trash     INTEGER NOT NULL DEFAULT FALSE,
    version      BIGINT NOT NULL DEFAULT 1,
    created_ms   BIGINT NOT NULL,
    created_by   TEXT NOT NULL,
    edited_ms    BIGINT NOT NULL,
    edited_by    TEXT NOT NULL
);
CREATE INDEX views_database ON views (database_id, position, id);

-- One row per scalar of a record's property value (a multi_select has one per option), typed so
-- that filters and sorts walk an index: v_text for text, option ids, dates (ISO), v_num for
-- numbers, checkboxes and times.
CREATE TABLE record_values (
    database_id TEXT NOT NULL,
    record_id   TEXT NOT NULL,
    property_id TEXT NOT NULL,
    ord         INTEGER NOT NULL,
    v_text      TEXT,
    v_num       REAL,
    PRIMARY KEY (record_id, property_id, ord)
);
CREATE INDEX record_values_text ON record_values (database_id, property_id, v_text, record_id);
CREATE INDEX record_values_num ON record_values (database_id, property_id, v_num, record_id);

CREATE TABLE mind_map_nodes (
    mind_map_id TEXT NOT NULL,
    id          TEXT NOT NULL,
    parent_id   TEXT,
    position    TEXT NOT NULL,
    text        TEXT NOT NULL,
    color       TEXT NOT NULL DEFAULT 'default',
    collapsed   INTEGER NOT NULL DEFAULT FALSE,
    PRIMARY KEY (mind_map_id, id)
);
CREATE INDEX mind_map_nodes_children ON mind_map_nodes (mind_map_id, parent_id, position);

CREATE TABLE files (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    token_id     TEXT NOT NULL,
    parent_id    TEXT,
    name         TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size         BIGINT NOT NULL,
    status       TEXT NOT NULL,
    storage_key  TEXT NOT NULL,
    created_ms   BIGINT NOT NULL,
    expires_ms   BIGINT NOT NULL,
    completed_ms BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX files_status ON files (status, expires_ms);

-- +goose Down
DROP TABLE files;
DROP TABLE mind_map_nodes;
DROP TABLE record_values;
DROP TABLE views;
DROP TABLE blocks;
DROP TABLE nodes;
