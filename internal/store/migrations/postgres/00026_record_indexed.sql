-- Indexed properties (docs/performance.md, "Seeding through indexed properties only"). A record
-- kept an entry of record_values, and of one of its value indexes at a random place, for every
-- property it has: most of a seeding batch's serial write. Now a database's rows are kept only
-- for the properties registered here: those a query or a view has filtered or sorted on (each
-- registered, and its rows written from the records' stored values, in one transaction before
-- the query that first asks: internal/store/records_indexed.go). The record number ('#n') is
-- always kept and never listed.
--
-- An existing store registers every property that has rows, so nothing it answers changes, and
-- the properties of registered record pairs (whose rows their triggers read).

-- +goose Up
CREATE TABLE record_indexed (
    database_id TEXT NOT NULL,
    property_id TEXT NOT NULL,
    created_ms  BIGINT NOT NULL,
    -- 0 once every record's rows are written; while a build writes them (a batch of records per
    -- transaction), the time in ms its builder's lease expires, after which another takes it over.
    lease_ms    BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (database_id, property_id)
);
INSERT INTO record_indexed (database_id, property_id, created_ms)
SELECT DISTINCT database_id, property_id, 0 FROM record_values WHERE property_id <> '#n'
UNION SELECT database_id, filter_prop, 0 FROM record_pair_keys
UNION SELECT database_id, sort_prop, 0 FROM record_pair_keys;

-- +goose Down
DROP TABLE record_indexed;
