-- The SQLite twin pads the FTS5 trigram indexes' text so that terms of one or two characters
-- are looked up on them (store/search_short.go). On PostgreSQL such terms are walked as before:
-- nothing changes here.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
