-- A composite index for a database query's filter and sort (docs/performance.md, "Record query:
-- composite index"). record_values holds one row per scalar, so no index spans two properties:
-- "select equals X, sorted by a number" walked the number's index and checked each record's
-- select, about twenty records read per match at 5%. record_pairs holds, for each registered
-- pair (a database's equality-filtered property F and sort property S), one row per record and
-- text value of F: that value, the record's value of S, and the record, so the query reads
-- page_size + 1 entries of one index in order.
--
-- A pair is registered (record_pair_keys, and its rows written from record_values in the same
-- transaction) once queries ask for it (internal/store/record_pairs.go). The triggers keep the
-- rows in step with record_values in the writing statement's transaction, whatever writes it:
-- records created, edited, moved in or out, properties dropped, options reordered, schema
-- changes. A record in trash keeps its rows, as it keeps its record_values; queries join nodes.
--
-- The triggers read a record's rows on the primary key (record_id, property_id): the unary +
-- keeps SQLite from taking a property's whole range of record_values_text instead, which it
-- otherwise does for "database_id = … AND property_id = … AND v_text IS NOT NULL" (a scan of
-- 100,000 entries per row written; TestPairTriggerPlans).
--
-- by_text says which column of S sorts (dbquery's sortColumn: v_text or v_num); its value goes
-- to s_text or s_num, and each of the two indexes holds only the rows that have its column.

-- +goose Up
CREATE TABLE record_pair_keys (
    id          INTEGER PRIMARY KEY,
    database_id TEXT NOT NULL,
    filter_prop TEXT NOT NULL,
    sort_prop   TEXT NOT NULL,
    by_text     BOOLEAN NOT NULL,
    created_ms  BIGINT NOT NULL
);
CREATE UNIQUE INDEX record_pair_keys_pair ON record_pair_keys (database_id, filter_prop, sort_prop, by_text);
CREATE INDEX record_pair_keys_sort ON record_pair_keys (database_id, sort_prop);

CREATE TABLE record_pairs (
    pair_id   BIGINT NOT NULL,
    record_id TEXT NOT NULL,
    f_value   TEXT NOT NULL,
    s_num     REAL,
    s_text    TEXT,
    PRIMARY KEY (pair_id, record_id, f_value)
);
CREATE INDEX record_pairs_num ON record_pairs (pair_id, f_value, s_num, record_id) WHERE s_num IS NOT NULL;
CREATE INDEX record_pairs_text ON record_pairs (pair_id, f_value, s_text, record_id) WHERE s_text IS NOT NULL;

-- A row of F or of S (ord 0) arrives: every pair it belongs to gets the record's rows, read
-- from record_values as they now are (the other property may not be there yet: then its own
-- row's arrival writes them).
-- +goose StatementBegin
CREATE TRIGGER record_pairs_ai AFTER INSERT ON record_values
WHEN EXISTS (SELECT 1 FROM record_pair_keys WHERE database_id = new.database_id) BEGIN
    INSERT INTO record_pairs (pair_id, record_id, f_value, s_num, s_text)
    SELECT k.id, new.record_id, f.v_text, CASE WHEN k.by_text THEN NULL ELSE s.v_num END, CASE WHEN k.by_text THEN s.v_text END
    FROM record_pair_keys k
    JOIN record_values f ON f.record_id = new.record_id AND +f.database_id = k.database_id AND f.property_id = k.filter_prop AND +f.v_text IS NOT NULL
    JOIN record_values s ON s.record_id = new.record_id AND +s.database_id = k.database_id AND s.property_id = k.sort_prop AND s.ord = 0
    WHERE k.database_id = new.database_id AND (k.filter_prop = new.property_id OR (k.sort_prop = new.property_id AND new.ord = 0))
        AND (k.by_text AND s.v_text IS NOT NULL OR NOT k.by_text AND s.v_num IS NOT NULL)
    ON CONFLICT DO NOTHING;
END;
-- +goose StatementEnd

-- A row of F leaves: the record's row for its text goes, unless another row of F has that text.
-- A row of S leaves: all of the record's rows of its pairs go.
-- +goose StatementBegin
CREATE TRIGGER record_pairs_ad AFTER DELETE ON record_values
WHEN EXISTS (SELECT 1 FROM record_pair_keys WHERE database_id = old.database_id) BEGIN
    DELETE FROM record_pairs WHERE record_id = old.record_id AND f_value = old.v_text
        AND pair_id IN (SELECT id FROM record_pair_keys WHERE database_id = old.database_id AND filter_prop = old.property_id)
        AND NOT EXISTS (SELECT 1 FROM record_values f WHERE f.record_id = old.record_id AND f.database_id = old.database_id AND f.property_id = old.property_id AND f.v_text = old.v_text);
    DELETE FROM record_pairs WHERE record_id = old.record_id AND old.ord = 0
        AND pair_id IN (SELECT id FROM record_pair_keys WHERE database_id = old.database_id AND sort_prop = old.property_id);
END;
-- +goose StatementEnd

-- An update is the old row leaving and the new one arriving.
-- +goose StatementBegin
CREATE TRIGGER record_pairs_au AFTER UPDATE ON record_values
WHEN EXISTS (SELECT 1 FROM record_pair_keys WHERE database_id = old.database_id OR database_id = new.database_id) BEGIN
    DELETE FROM record_pairs WHERE record_id = old.record_id AND f_value = old.v_text
        AND pair_id IN (SELECT id FROM record_pair_keys WHERE database_id = old.database_id AND filter_prop = old.property_id)
        AND NOT EXISTS (SELECT 1 FROM record_values f WHERE f.record_id = old.record_id AND f.database_id = old.database_id AND f.property_id = old.property_id AND f.v_text = old.v_text);
    DELETE FROM record_pairs WHERE record_id = old.record_id AND old.ord = 0
        AND pair_id IN (SELECT id FROM record_pair_keys WHERE database_id = old.database_id AND sort_prop = old.property_id);
    INSERT INTO record_pairs (pair_id, record_id, f_value, s_num, s_text)
    SELECT k.id, new.record_id, f.v_text, CASE WHEN k.by_text THEN NULL ELSE s.v_num END, CASE WHEN k.by_text THEN s.v_text END
    FROM record_pair_keys k
    JOIN record_values f ON f.record_id = new.record_id AND +f.database_id = k.database_id AND f.property_id = k.filter_prop AND +f.v_text IS NOT NULL
    JOIN record_values s ON s.record_id = new.record_id AND +s.database_id = k.database_id AND s.property_id = k.sort_prop AND s.ord = 0
    WHERE k.database_id = new.database_id AND (k.filter_prop = new.property_id OR (k.sort_prop = new.property_id AND new.ord = 0))
        AND (k.by_text AND s.v_text IS NOT NULL OR NOT k.by_text AND s.v_num IS NOT NULL)
    ON CONFLICT DO NOTHING;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER record_pairs_au;
DROP TRIGGER record_pairs_ad;
DROP TRIGGER record_pairs_ai;
DROP TABLE record_pairs;
DROP TABLE record_pair_keys;
