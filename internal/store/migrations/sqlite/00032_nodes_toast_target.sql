-- PostgreSQL's twin stops compressing records' properties of 2–8 KB rows (toast_tuple_target).
-- SQLite compresses nothing and keeps a row past its page's room in overflow pages, read only
-- as far as the record's columns need: nothing to change here.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
