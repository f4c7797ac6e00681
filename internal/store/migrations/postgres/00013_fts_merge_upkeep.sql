-- The SQLite twin hands the merging of FTS5 segments to the store's upkeep loop; PostgreSQL's
-- GIN indexes keep their own pending list and need nothing here.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
