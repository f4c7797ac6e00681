-- PostgreSQL's twin adds the sequence of provisional event positions. SQLite has one writer,
-- which gives positions at the write as before.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
