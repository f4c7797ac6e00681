-- SQLite's twin drops the foreign key of blocks.workspace_id, which PostgreSQL's 00030 dropped
-- already; nothing changes here.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
