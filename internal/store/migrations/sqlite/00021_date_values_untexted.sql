-- A date's record_values row keeps only its number (docs/performance.md, "Seeding, second pass").
-- Every date filter and sort reads v_num (internal/dbquery); the start as given, in v_text, was
-- read by nothing, yet put each record's row at a random place of record_values_text as well:
-- a page of that index written per record of a seeding batch. Writers no longer store it
-- (properties.Scalars); this drops it from the rows written before. A row keeps its v_num, so it
-- stays in record_values_num, where every date condition and sort finds it.

-- +goose Up
UPDATE record_values SET v_text = NULL
WHERE v_text IS NOT NULL AND v_num IS NOT NULL AND (database_id, property_id) IN (
    SELECT n.id, json_extract(p.value, '$.id') FROM nodes n, json_each(n.properties) p
    WHERE n.object = 'database' AND json_extract(p.value, '$.type') = 'date');

-- +goose Down
-- Nothing reads the text, so nothing needs it back.
SELECT 1;
