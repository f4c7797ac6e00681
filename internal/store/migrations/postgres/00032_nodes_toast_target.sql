-- A record's properties stored as they are, not compressed (docs/performance.md, "Database
-- query, sixth pass"). PostgreSQL compresses a row's long values once the row passes 2 KB
-- (TOAST_TUPLE_THRESHOLD) until it is under toast_tuple_target, 2 KB by default: a third of the
-- speed scenario's records (ten properties, 1.4 KB of properties, 2.1 KB a row) were stored
-- pglz-compressed, and a database query decompressed each of those it answered, on every query.
-- With the target at its ceiling a row is compressed only past 8 KB, so such records stay
-- inline as written; a larger row (a database's long schema) is compressed as before. It
-- applies to rows written or updated from now on: an existing row keeps its compressed value
-- until the record is next edited (no rewrite of the largest table at upgrade). The cost: the
-- uncompressed values take more room (about 30 MB per 100,000 such records).

-- +goose Up
ALTER TABLE nodes SET (toast_tuple_target = 8160);

-- +goose Down
ALTER TABLE nodes RESET (toast_tuple_target);
