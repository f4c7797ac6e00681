-- PostgreSQL's twin keeps a lower-cased copy of each search_docs entry for keyword search's
-- substring tests (ILIKE lowered every text it tested). SQLite needs none: its LIKE folds ASCII
-- case as it compares, without a copy, and quire_contains folds the rest (internal/search/fold.go).

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
