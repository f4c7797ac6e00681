package dbquery_test

import (
	"math"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/quire"
)

func num(f float64) dbquery.Key { return dbquery.Key{Num: &f} }
func text(s string) dbquery.Key { return dbquery.Key{Text: &s} }

// compileInputs are compiled for both dialects against database "db1" with Limit 3 and now.
var compileInputs = []struct {
	name, filter, sorts string
	after               *dbquery.Position
	within              []string
}{
	{name: "default order"},
	{name: "default order after a cursor", after: &dbquery.Position{Keys: []dbquery.Key{num(1715504400000)}, ID: "r4"}},
	{name: "text equals", filter: `{"property":"Name","title":{"equals":"Cherry"}}`},
	{name: "text does_not_equal", filter: `{"property":"Name","title":{"does_not_equal":"Cherry"}}`},
	{name: "text contains escapes wildcards", filter: `{"property":"Notes","rich_text":{"contains":"100%_\\"}}`},
	{name: "text does_not_contain", filter: `{"property":"Notes","rich_text":{"does_not_contain":"und"}}`},
	{name: "text starts_with", filter: `{"property":"Mail","email":{"starts_with":"b@"}}`},
	{name: "text ends_with", filter: `{"property":"Web","url":{"ends_with":".test"}}`},
	{name: "text is_empty", filter: `{"property":"Phone","phone_number":{"is_empty":true}}`},
	{name: "text is_not_empty", filter: `{"property":"Notes","rich_text":{"is_not_empty":true}}`},
	{name: "number equals", filter: `{"property":"Score","number":{"equals":10}}`},
	{name: "number does_not_equal", filter: `{"property":"Score","number":{"does_not_equal":10}}`},
	{name: "number greater_than", filter: `{"property":"Score","number":{"greater_than":5.5}}`},
	{name: "number less_than_or_equal_to", filter: `{"property":"ID","unique_id":{"less_than_or_equal_to":3}}`},
	{name: "number is_empty", filter: `{"property":"Score","number":{"is_empty":true}}`},
	{name: "checkbox equals true", filter: `{"property":"Done","checkbox":{"equals":true}}`},
	{name: "checkbox equals false", filter: `{"property":"Done","checkbox":{"equals":false}}`},
	{name: "select equals", filter: `{"property":"Stage","select":{"equals":"Todo"}}`},
	{name: "status does_not_equal", filter: `{"property":"State","status":{"does_not_equal":"Complete"}}`},
	{name: "select is_not_empty", filter: `{"property":"Stage","select":{"is_not_empty":true}}`},
	{name: "multi_select contains", filter: `{"property":"Tags","multi_select":{"contains":"red"}}`},
	{name: "people does_not_contain", filter: `{"property":"Owner","people":{"does_not_contain":"` + u1 + `"}}`},
	{name: "relation contains", filter: `{"property":"Link","relation":{"contains":"` + p1 + `"}}`},
	{name: "files is_empty", filter: `{"property":"Files","files":{"is_empty":true}}`},
	{name: "date equals day", filter: `{"property":"Due","date":{"equals":"2024-05-10"}}`},
	{name: "date equals instant", filter: `{"property":"Due","date":{"equals":"2024-05-10T15:00:00Z"}}`},
	{name: "date after day", filter: `{"property":"Due","date":{"after":"2024-05-10"}}`},
	{name: "date on_or_before instant", filter: `{"property":"Due","date":{"on_or_before":"2024-05-10T12:00:00Z"}}`},
	{name: "date past_week", filter: `{"property":"Due","date":{"past_week":{}}}`},
	{name: "date this_week", filter: `{"property":"Due","date":{"this_week":{}}}`},
	{name: "timestamp created_time on_or_after", filter: `{"timestamp":"created_time","created_time":{"on_or_after":"2024-05-06"}}`},
	{name: "last_edited_time property next_year", filter: `{"property":"Edited","last_edited_time":{"next_year":{}}}`},
	{name: "created_time property is_empty", filter: `{"property":"Created","created_time":{"is_empty":true}}`},
	{name: "created_by contains", filter: `{"property":"Creator","created_by":{"contains":"` + u2 + `"}}`},
	{name: "last_edited_by does_not_contain", filter: `{"property":"Editor","last_edited_by":{"does_not_contain":"` + u2 + `"}}`},
	{name: "and of or", filter: `{"and":[{"property":"Done","checkbox":{"equals":true}},{"or":[{"property":"Name","title":{"contains":"a"}},{"property":"Score","number":{"is_empty":true}}]}]}`},
	{name: "or of and", filter: `{"or":[{"and":[{"property":"Score","number":{"equals":10}},{"property":"Done","checkbox":{"equals":true}}]},{"property":"Stage","select":{"equals":"Done"}}]}`},
	{name: "empty and", filter: `{"and":[]}`},
	{name: "empty or", filter: `{"or":[]}`},
	{name: "number sort", sorts: `[{"property":"Score","direction":"ascending"}]`},
	{name: "number sort descending after a cursor, filtered", filter: `{"property":"Stage","select":{"equals":"Todo"}}`,
		sorts: `[{"property":"Score","direction":"descending"}]`, after: &dbquery.Position{Keys: []dbquery.Key{num(5.5)}, ID: "r2"}},
	{name: "text sort after a cursor", sorts: `[{"property":"Web","direction":"ascending"}]`, after: &dbquery.Position{Keys: []dbquery.Key{text("http://a")}, ID: "r3"}},
	{name: "records without a value, from their start", filter: `{"property":"Done","checkbox":{"equals":true}}`,
		sorts: `[{"property":"Score","direction":"ascending"}]`, after: &dbquery.Position{Keys: []dbquery.Key{{}}}},
	{name: "records without a value, after a cursor", sorts: `[{"property":"Due","direction":"descending"}]`, after: &dbquery.Position{Keys: []dbquery.Key{{}}, ID: "r6"}},
	{name: "timestamp sort after a cursor", sorts: `[{"timestamp":"last_edited_time","direction":"ascending"}]`, after: &dbquery.Position{Keys: []dbquery.Key{num(1715504400000)}, ID: "r6"}},
	{name: "created_time property sort", sorts: `[{"property":"Created","direction":"ascending"}]`},
	{name: "several sorts", filter: `{"property":"Name","title":{"contains":"e"}}`,
		sorts: `[{"property":"Done","direction":"ascending"},{"timestamp":"created_time","direction":"descending"},{"property":"Web","direction":"descending"}]`},
	{name: "several sorts after a cursor", sorts: `[{"property":"Done","direction":"ascending"},{"timestamp":"created_time","direction":"descending"},{"property":"Web","direction":"descending"}]`,
		after: &dbquery.Position{Keys: []dbquery.Key{num(1), num(1715504400000), {}}, ID: "r6"}},
	{name: "within, default order", filter: `{"property":"Score","number":{"greater_than":5}}`, within: []string{"r1", "r6", "r1"}},
	{name: "within, sorted, after a cursor", sorts: `[{"property":"Score","direction":"descending"}]`, within: []string{"r2"},
		after: &dbquery.Position{Keys: []dbquery.Key{num(10)}, ID: "r6"}},
	{name: "within nothing", within: []string{}},
}

// compileWant is what compileInputs compile to, by name; postgres is empty where it equals sqlite.
var compileWant = []struct {
	name, sqlite, postgres string
	args                   []any
}{
	{name: "default order",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1"}},
	{name: "default order after a cursor",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND (n.created_ms, n.id) < ($2, $3)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", int64(1715504400000), "r4"}},
	{name: "text equals",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_text = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "title", "Cherry"}},
	{name: "text does_not_equal",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_text = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "title", "Cherry"}},
	{name: "text contains escapes wildcards",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_text LIKE $3 ESCAPE '\' LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		postgres: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_text COLLATE "C" ILIKE $3 ESCAPE '\' LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "nt", "%100\\%\\_\\\\%"}},
	{name: "text does_not_contain",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_text LIKE $3 ESCAPE '\' LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		postgres: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_text COLLATE "C" ILIKE $3 ESCAPE '\' LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "nt", "%und%"}},
	{name: "text starts_with",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_text LIKE $3 ESCAPE '\' LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		postgres: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_text COLLATE "C" ILIKE $3 ESCAPE '\' LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "em", "b@%"}},
	{name: "text ends_with",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_text LIKE $3 ESCAPE '\' LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		postgres: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_text COLLATE "C" ILIKE $3 ESCAPE '\' LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "ur", "%.test"}},
	{name: "text is_empty",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "ph"}},
	{name: "text is_not_empty",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "nt"}},
	{name: "number equals",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_num = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "sc", float64(10)}},
	{name: "number does_not_equal",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_num = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "sc", float64(10)}},
	{name: "number greater_than",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_num > $3 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "sc", float64(5.5)}},
	{name: "number less_than_or_equal_to",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_num <= $3 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "ui", float64(3)}},
	{name: "number is_empty",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "sc"}},
	{name: "checkbox equals true",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_num = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "dn", float64(1)}},
	{name: "checkbox equals false",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_num = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "dn", float64(1)}},
	{name: "select equals",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_text = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "sl", "a"}},
	{name: "status does_not_equal",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_text = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "st", "s3"}},
	{name: "select is_not_empty",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "sl"}},
	{name: "multi_select contains",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_text = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "tg", "x"}},
	{name: "people does_not_contain",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_text = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "pp", "11111111-1111-4111-8111-111111111111"}},
	{name: "relation contains",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_text = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "rl", "aaaaaaaa-0000-4000-8000-000000000001"}},
	{name: "files is_empty",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "fl"}},
	{name: "date equals day",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_num >= $3 AND v.v_num < $4 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "du", float64(1715299200000), float64(1715385600000)}},
	{name: "date equals instant",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_num = $3 AND v.record_id = n.id LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "du", float64(1715353200000)}},
	{name: "date after day",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_num >= $3 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "du", float64(1715385600000)}},
	{name: "date on_or_before instant",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_num <= $3 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "du", float64(1715342400000)}},
	{name: "date past_week",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_num >= $3 AND v.v_num < $4 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "du", float64(1715126400000), float64(1715817600000)}},
	{name: "date this_week",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $2 AND v.v_num >= $3 AND v.v_num < $4 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "du", float64(1715558400000), float64(1716163200000)}},
	{name: "timestamp created_time on_or_after",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND n.created_ms >= $2
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", int64(1714953600000)}},
	{name: "last_edited_time property next_year",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND (n.edited_ms >= $2 AND n.edited_ms < $3)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", int64(1715731200000), int64(1747353600000)}},
	{name: "created_time property is_empty",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND FALSE
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1"}},
	{name: "created_by contains",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND n.created_by = $2
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "22222222-2222-4222-8222-222222222222"}},
	{name: "last_edited_by does_not_contain",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND n.edited_by <> $2
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "22222222-2222-4222-8222-222222222222"}},
	{name: "and of or",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_num = $3 AND v.record_id = n.id LIMIT 1)
  AND (EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $4 AND v.v_text LIKE $5 ESCAPE '\' LIMIT 1) OR NOT EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $6 LIMIT 1))
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		postgres: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_num = $3 AND v.record_id = n.id LIMIT 1)
  AND (EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $4 AND v.v_text COLLATE "C" ILIKE $5 ESCAPE '\' LIMIT 1) OR NOT EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $6 LIMIT 1))
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "dn", float64(1), "title", "%a%", "sc"}},
	{name: "or of and",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND ((EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_num = $3 AND v.record_id = n.id LIMIT 1) AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $4 AND v.v_num = $5 AND v.record_id = n.id LIMIT 1)) OR EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $6 AND v.v_text = $7 AND v.record_id = n.id LIMIT 1))
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "sc", float64(10), "dn", float64(1), "sl", "c"}},
	{name: "empty and",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND TRUE
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1"}},
	{name: "empty or",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND FALSE
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1"}},
	{name: "number sort",
		sqlite: `SELECT n.id, s.v_num
FROM record_values s CROSS JOIN nodes n
WHERE s.database_id = $1 AND s.property_id = $2 AND s.v_num IS NOT NULL
  AND n.id = s.record_id AND n.parent_id = $1 AND n.in_trash = FALSE
ORDER BY s.v_num, s.record_id
LIMIT 3`,
		args: []any{"db1", "sc"}},
	{name: "number sort descending after a cursor, filtered",
		sqlite: `SELECT n.id, s.v_num
FROM record_values s CROSS JOIN nodes n
WHERE s.database_id = $1 AND s.property_id = $2 AND s.v_num IS NOT NULL
  AND n.id = s.record_id AND n.parent_id = $1 AND n.in_trash = FALSE
  AND (s.v_num, s.record_id) < ($3, $4)
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $5 AND v.v_text = $6 AND v.record_id = s.record_id LIMIT 1)
ORDER BY s.v_num DESC, s.record_id DESC
LIMIT 3`,
		args: []any{"db1", "sc", float64(5.5), "r2", "sl", "a"}},
	{name: "text sort after a cursor",
		sqlite: `SELECT n.id, s.v_text
FROM record_values s CROSS JOIN nodes n
WHERE s.database_id = $1 AND s.property_id = $2 AND s.v_text IS NOT NULL
  AND n.id = s.record_id AND n.parent_id = $1 AND n.in_trash = FALSE
  AND (s.v_text, s.record_id) > ($3, $4)
ORDER BY s.v_text, s.record_id
LIMIT 3`,
		args: []any{"db1", "ur", "http://a", "r3"}},
	{name: "records without a value, from their start",
		sqlite: `SELECT n.id
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values s WHERE s.record_id = n.id AND s.property_id = $2 AND s.v_num IS NOT NULL)
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $3 AND v.v_num = $4 AND v.record_id = n.id LIMIT 1)
ORDER BY n.id
LIMIT 3`,
		args: []any{"db1", "sc", "dn", float64(1)}},
	{name: "records without a value, after a cursor",
		sqlite: `SELECT n.id
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND NOT EXISTS (SELECT 1 FROM record_values s WHERE s.record_id = n.id AND s.property_id = $2 AND s.v_num IS NOT NULL)
  AND n.id < $3
ORDER BY n.id DESC
LIMIT 3`,
		args: []any{"db1", "du", "r6"}},
	{name: "timestamp sort after a cursor",
		sqlite: `SELECT n.id, n.edited_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND (n.edited_ms, n.id) > ($2, $3)
ORDER BY n.edited_ms, n.id
LIMIT 3`,
		args: []any{"db1", int64(1715504400000), "r6"}},
	{name: "created_time property sort",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE n.parent_id = $1 AND n.in_trash = FALSE
ORDER BY n.created_ms, n.id
LIMIT 3`,
		args: []any{"db1"}},
	{name: "several sorts",
		sqlite: `SELECT n.id, s1.v_num, n.created_ms, s3.v_text
FROM nodes n
LEFT JOIN record_values s1 ON s1.record_id = n.id AND s1.property_id = $2 AND s1.ord = 0
LEFT JOIN record_values s3 ON s3.record_id = n.id AND s3.property_id = $3 AND s3.ord = 0
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $4 AND v.v_text LIKE $5 ESCAPE '\' LIMIT 1)
ORDER BY s1.v_num IS NULL, s1.v_num, n.created_ms DESC, s3.v_text IS NULL, s3.v_text DESC, n.id DESC
LIMIT 3`,
		postgres: `SELECT n.id, s1.v_num, n.created_ms, s3.v_text
FROM nodes n
LEFT JOIN record_values s1 ON s1.record_id = n.id AND s1.property_id = $2 AND s1.ord = 0
LEFT JOIN record_values s3 ON s3.record_id = n.id AND s3.property_id = $3 AND s3.ord = 0
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $4 AND v.v_text COLLATE "C" ILIKE $5 ESCAPE '\' LIMIT 1)
ORDER BY s1.v_num IS NULL, s1.v_num, n.created_ms DESC, s3.v_text IS NULL, s3.v_text DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "dn", "ur", "title", "%e%"}},
	{name: "several sorts after a cursor",
		sqlite: `SELECT n.id, s1.v_num, n.created_ms, s3.v_text
FROM nodes n
LEFT JOIN record_values s1 ON s1.record_id = n.id AND s1.property_id = $2 AND s1.ord = 0
LEFT JOIN record_values s3 ON s3.record_id = n.id AND s3.property_id = $3 AND s3.ord = 0
WHERE n.parent_id = $1 AND n.in_trash = FALSE
  AND (s1.v_num > $4 OR s1.v_num IS NULL OR (s1.v_num = $4 AND (n.created_ms < $5 OR (n.created_ms = $5 AND (s3.v_text IS NULL AND n.id < $6)))))
ORDER BY s1.v_num IS NULL, s1.v_num, n.created_ms DESC, s3.v_text IS NULL, s3.v_text DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "dn", "ur", float64(1), int64(1715504400000), "r6"}},
	{name: "within, default order",
		sqlite: `WITH w (id) AS (VALUES (CAST($2 AS TEXT)), ($3))
SELECT n.id, n.created_ms
FROM w CROSS JOIN nodes n
WHERE n.id = w.id AND n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = n.id AND v.property_id = $4 AND v.v_num > $5 LIMIT 1)
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "r1", "r6", "sc", float64(5)}},
	{name: "within, sorted, after a cursor",
		sqlite: `WITH w (id) AS (VALUES (CAST($2 AS TEXT)))
SELECT n.id, s1.v_num
FROM w CROSS JOIN nodes n
LEFT JOIN record_values s1 ON s1.record_id = n.id AND s1.property_id = $3 AND s1.ord = 0
WHERE n.id = w.id AND n.parent_id = $1 AND n.in_trash = FALSE
  AND (s1.v_num < $4 OR s1.v_num IS NULL OR (s1.v_num = $4 AND n.id < $5))
ORDER BY s1.v_num IS NULL, s1.v_num DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1", "r2", "sc", float64(10), "r6"}},
	{name: "within nothing",
		sqlite: `SELECT n.id, n.created_ms
FROM nodes n
WHERE FALSE AND n.parent_id = $1 AND n.in_trash = FALSE
ORDER BY n.created_ms DESC, n.id DESC
LIMIT 3`,
		args: []any{"db1"}},
}

// pgFence finds the end of each condition's EXISTS subquery (conditions hold no parentheses),
// where SQLite's statements say LIMIT 1 and PostgreSQL's OFFSET 0 (see dialect.fence).
var pgFence = regexp.MustCompile(`(EXISTS \(SELECT 1 FROM record_values v WHERE [^()]*) LIMIT 1\)`)

func TestCompileSQL(t *testing.T) {
	if len(compileWant) != len(compileInputs) {
		t.Fatalf("%d expectations for %d inputs", len(compileWant), len(compileInputs))
	}
	for i, tc := range compileInputs {
		want := compileWant[i]
		t.Run(tc.name, func(t *testing.T) {
			if want.name != tc.name {
				t.Fatalf("expectation %q for input %q", want.name, tc.name)
			}
			f, ss, err := dbquery.Decode(testSchema, []byte(tc.filter), []byte(tc.sorts))
			if err != nil {
				t.Fatal(err)
			}
			q := dbquery.Query{DatabaseID: "db1", Filter: f, Sorts: ss, After: tc.after, Limit: 3, Now: now, Within: tc.within}
			pg := want.postgres
			if pg == "" {
				pg = want.sqlite
			}
			// PostgreSQL ends each condition's subquery with OFFSET 0 (see dialect.fence).
			pg = pgFence.ReplaceAllString(pg, "$1 OFFSET 0)")
			for d, sql := range map[dbquery.Dialect]string{dbquery.SQLite: want.sqlite, dbquery.Postgres: pg} {
				st, err := dbquery.Compile(d, q)
				if err != nil {
					t.Fatalf("%s: %v", d, err)
				}
				if diff := cmp.Diff(sql, st.SQL); diff != "" {
					t.Errorf("%s SQL (-want +got):\n%s", d, diff)
				}
				if diff := cmp.Diff(want.args, st.Args); diff != "" {
					t.Errorf("%s args (-want +got):\n%s", d, diff)
				}
			}
		})
	}
}

// TestCompileThen: only the walk of a sort property's values continues with the records
// without a value.
func TestCompileThen(t *testing.T) {
	for _, tc := range []struct {
		sorts  string
		within []string
		then   bool
	}{
		{``, nil, false},
		{`[{"property":"Score","direction":"ascending"}]`, nil, true},
		{`[{"property":"Score","direction":"ascending"}]`, []string{"r1"}, false},
		{`[{"timestamp":"created_time","direction":"ascending"}]`, nil, false},
		{`[{"property":"Score","direction":"ascending"},{"property":"Web","direction":"ascending"}]`, nil, false},
	} {
		_, ss, err := dbquery.Decode(testSchema, nil, []byte(tc.sorts))
		if err != nil {
			t.Fatal(err)
		}
		st, err := dbquery.Compile(dbquery.SQLite, dbquery.Query{DatabaseID: "db1", Sorts: ss, Limit: 3, Within: tc.within})
		if err != nil {
			t.Fatal(err)
		}
		want := (*dbquery.Position)(nil)
		if tc.then {
			want = &dbquery.Position{Keys: []dbquery.Key{{}}}
		}
		if diff := cmp.Diff(want, st.Then); diff != "" {
			t.Errorf("%s within %v: Then (-want +got):\n%s", tc.sorts, tc.within, diff)
		}
	}
}

// TestCompileBadCursor: a position that does not fit the query answers 400 on start_cursor.
func TestCompileBadCursor(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name, sorts string
		after       dbquery.Position
	}{
		{"default: no key", ``, dbquery.Position{ID: "r1"}},
		{"default: text key", ``, dbquery.Position{Keys: []dbquery.Key{text("x")}, ID: "r1"}},
		{"default: fractional time", ``, dbquery.Position{Keys: []dbquery.Key{num(1.5)}, ID: "r1"}},
		{"default: empty key", ``, dbquery.Position{Keys: []dbquery.Key{{}}, ID: "r1"}},
		{"default: no id", ``, dbquery.Position{Keys: []dbquery.Key{num(1)}}},
		{"number sort: text key", `[{"property":"Score","direction":"ascending"}]`, dbquery.Position{Keys: []dbquery.Key{text("x")}, ID: "r1"}},
		{"number sort: NaN", `[{"property":"Score","direction":"ascending"}]`, dbquery.Position{Keys: []dbquery.Key{{Num: &nan}}, ID: "r1"}},
		{"number sort: both kinds", `[{"property":"Score","direction":"ascending"}]`, dbquery.Position{Keys: []dbquery.Key{{Num: &nan, Text: new(string)}}, ID: "r1"}},
		{"number sort: value without id", `[{"property":"Score","direction":"ascending"}]`, dbquery.Position{Keys: []dbquery.Key{num(1)}}},
		{"number sort: two keys", `[{"property":"Score","direction":"ascending"}]`, dbquery.Position{Keys: []dbquery.Key{num(1), num(2)}, ID: "r1"}},
		{"text sort: number key", `[{"property":"Web","direction":"ascending"}]`, dbquery.Position{Keys: []dbquery.Key{num(1)}, ID: "r1"}},
		{"several: one key", `[{"property":"Score","direction":"ascending"},{"property":"Web","direction":"ascending"}]`, dbquery.Position{Keys: []dbquery.Key{num(1)}, ID: "r1"}},
		{"several: empty timestamp", `[{"timestamp":"created_time","direction":"ascending"},{"property":"Web","direction":"ascending"}]`, dbquery.Position{Keys: []dbquery.Key{{}, {}}, ID: "r1"}},
		{"several: start of empties", `[{"property":"Score","direction":"ascending"},{"property":"Web","direction":"ascending"}]`, dbquery.Position{Keys: []dbquery.Key{{}, {}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ss, err := dbquery.Decode(testSchema, nil, []byte(tc.sorts))
			if err != nil {
				t.Fatal(err)
			}
			_, err = dbquery.Compile(dbquery.SQLite, dbquery.Query{DatabaseID: "db1", Sorts: ss, After: &tc.after, Limit: 3})
			e, ok := quire.AsError(err)
			if !ok || e.Code != quire.CodeValidation || len(e.Details) != 1 || e.Details[0].Path != "start_cursor" {
				t.Errorf("Compile = %v, want validation_error on start_cursor", err)
			}
		})
	}
}

func TestProbes(t *testing.T) {
	f, err := dbquery.DecodeFilter(testSchema, []byte(`{"and":[{"property":"Notes","rich_text":{"contains":"x"}},{"property":"Score","number":{"greater_than":1}},
		{"property":"Stage","select":{"does_not_equal":"Todo"}},{"property":"Tags","multi_select":{"is_not_empty":true}},{"timestamp":"created_time","created_time":{"past_week":{}}},
		{"or":[{"property":"Name","title":{"equals":"x"}}]},{"property":"Link","relation":{"contains":"`+p1+`"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []dbquery.Dialect{dbquery.SQLite, dbquery.Postgres} {
		ps, err := dbquery.Probes(d, dbquery.Query{DatabaseID: "db1", Filter: f}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		like := "LIKE"
		if d == dbquery.Postgres {
			like = `COLLATE "C" ILIKE`
		}
		type probe struct {
			SQL  string
			Args []any
		}
		want := []probe{
			{"SELECT count(*) FROM (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_num > $3 LIMIT $4) p", []any{"db1", "sc", 1.0, int64(1001)}},
			{"SELECT count(*) FROM (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_text = $3 LIMIT $4) p", []any{"db1", "rl", p1, int64(1001)}},
			{"SELECT count(*) FROM (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $2 AND v.v_text " + like + ` $3 ESCAPE '\' AND v.v_text IS NOT NULL LIMIT $4) p`, []any{"db1", "nt", "%x%", int64(1001)}},
		}
		got := make([]probe, len(ps))
		for i, p := range ps {
			got[i] = probe{p.SQL, p.Args}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s probes (-want +got):\n%s", d, diff)
		}
	}
}
