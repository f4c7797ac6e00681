-- A new block's workspace is no longer checked against workspaces by a foreign key
-- (docs/performance.md, "Append, sixth pass"). The check was PostgreSQL's RI trigger, one per
-- inserted row: an append of 100 paragraphs ran 100 lookups of the workspace's row, each taking
-- a KEY SHARE lock on it, so concurrent appenders of a workspace shared-locked one row (a
-- MultiXact once two overlap). The check guarded nothing the code does not: a block's workspace
-- is always its page's (service/blocks.go), nodes.workspace_id keeps its foreign key, and no
-- statement deletes a workspace or changes its id. SQLite's twin keeps its check: SQLite
-- compiles it into the INSERT as one seek of the workspace's primary key per row, and dropping
-- it would mean rebuilding the blocks table.

-- +goose Up
ALTER TABLE blocks DROP CONSTRAINT IF EXISTS blocks_workspace_id_fkey;

-- +goose Down
ALTER TABLE blocks ADD CONSTRAINT blocks_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces (id);
