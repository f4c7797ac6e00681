-- record_values' two indexes hold only the rows that have their column: a number's row (v_text
-- NULL) was also in the text index under NULL, a text's row (v_num NULL) in the number index,
-- where no query looks for them (filters, sorts and probes test the column's value, which
-- implies it is not NULL; a probe of a pattern that begins with % says so outright, and a
-- record's rows are found on the primary key). Every write touched those entries for nothing: a
-- mutation batch's new records dirtied a sixth more pages, and the indexes a query seeks were
-- larger. Every row has a v_text or a v_num (see internal/dbquery), so a database's rows of a
-- property are all found on the two. PostgreSQL keeps its indexes whole (its twin says why).

-- +goose Up
DROP INDEX record_values_text;
DROP INDEX record_values_num;
CREATE INDEX record_values_text ON record_values (database_id, property_id, v_text, record_id) WHERE v_text IS NOT NULL;
CREATE INDEX record_values_num ON record_values (database_id, property_id, v_num, record_id) WHERE v_num IS NOT NULL;

-- +goose Down
DROP INDEX record_values_num;
DROP INDEX record_values_text;
CREATE INDEX record_values_text ON record_values (database_id, property_id, v_text, record_id);
CREATE INDEX record_values_num ON record_values (database_id, property_id, v_num, record_id);
