-- The SQLite twin makes record_values' two indexes hold only the rows that have their column.
-- PostgreSQL keeps both whole: its planner reads a pattern filter (contains) on a partial index
-- through a bitmap scan of the table where it scans the whole index only (measured on PostgreSQL
-- 15: the probe of a rich_text contains), and its writes cost little per index entry beside
-- writing a new version of the row. The statements that name a property's rows say that the
-- column is not NULL, which suits both.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
