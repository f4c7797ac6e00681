package store

import (
	"context"
	"strings"
	"testing"
)

// TestRecordValuesPlans: on SQLite, the statements on one property's rows of a database, and
// the batch statements on records' rows, are read on an index of record_values, never by a scan
// of the table, although its two indexes hold only the rows with their column (00011).
func TestRecordValuesPlans(t *testing.T) {
	s, err := Open(context.Background(), Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for q, want := range map[string]string{
		dropTextRows: "INDEX record_values_text (database_id=? AND property_id=?",
		dropNumRows:  "INDEX record_values_num (database_id=? AND property_id=?",
		copyNumbers:  "INDEX record_values_num (database_id=? AND property_id=?",
		maxNumber:    "INDEX record_values_num (database_id=? AND property_id=?",
		`DELETE FROM record_values WHERE (record_id, property_id) IN (VALUES (?, ?), (?, ?))`:       "INDEX sqlite_autoindex_record_values_1 (record_id=? AND property_id=?",
		`UPDATE record_values SET v_num = $3 WHERE record_id = $1 AND property_id = $2 AND ord = 0`: "INDEX sqlite_autoindex_record_values_1 (record_id=? AND property_id=? AND ord=?)",
	} {
		rows, err := s.read.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, "a", "b", "c", "d")
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		got := strings.Join(plan, "\n")
		if !strings.Contains(got, want) || strings.Contains(got, "SCAN record_values") {
			t.Errorf("%s:\n%s\nwant %s", q, got, want)
		}
	}
}
