-- PostgreSQL's twin lets its statement trigger on new blocks skip those whose search entries
-- the store's INSERT wrote. SQLite has no such trigger: the store writes every new block's
-- entries itself (00034).

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
