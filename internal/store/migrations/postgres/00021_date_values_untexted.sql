-- A date's record_values row keeps only its number, as in the SQLite twin, which says why.
-- PostgreSQL's indexes of record_values are whole (00011), so its rows stay in both; each
-- entry of a date in the text index is now a NULL rather than its text.

-- +goose Up
WITH dbs AS MATERIALIZED (
    SELECT id, CASE WHEN jsonb_typeof(properties::jsonb) = 'array' THEN properties::jsonb ELSE '[]'::jsonb END AS schema
    FROM nodes WHERE object = 'database'
), dates AS (
    SELECT dbs.id, p->>'id' AS prop FROM dbs, jsonb_array_elements(dbs.schema) p WHERE p->>'type' = 'date'
)
UPDATE record_values v SET v_text = NULL FROM dates d
WHERE v.database_id = d.id AND v.property_id = d.prop AND v.v_text IS NOT NULL AND v.v_num IS NOT NULL;

-- +goose Down
SELECT 1;
