-- PostgreSQL's twin writes new nodes' title entries with one INSERT per statement instead of one
-- per row. SQLite has only row triggers (nodes_search_ai, 00012), which run inside the
-- statement's own VM at the cost of one b-tree insert each: no extra statement per row to save,
-- so nothing changes here.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
