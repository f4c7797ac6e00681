-- PostgreSQL's twin drops the foreign key of blocks.workspace_id, one RI trigger per inserted
-- row there. SQLite checks it inline in the INSERT (one seek of workspaces' primary key a row,
-- no trigger), and dropping it would mean rebuilding the blocks table, so nothing changes here.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
