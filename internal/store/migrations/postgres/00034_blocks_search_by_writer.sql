-- SQLite's twin drops its per-row insert trigger of blocks, whose search entries the writers
-- now write themselves. PostgreSQL's entries come from one statement trigger per INSERT
-- (blocks_search_insert, 00028), which every writer of blocks (the store's insert, a restore)
-- shares at the cost of one call a statement, so nothing changes here.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
