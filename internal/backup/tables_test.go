package backup

import (
	"context"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// TestTables_CoverSchema keeps the list of carried tables in step with the migrations: every
// table of a migrated store is carried (with exactly its columns) or named as derived, so a
// migration that adds a table or a column fails here until the backup knows what to do with it.
func TestTables_CoverSchema(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		tableQuery := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
		columnQuery := `SELECT name FROM pragma_table_info($1)`
		if s.Engine() == store.Postgres {
			tableQuery = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
			columnQuery = `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`
		}
		err := s.ReadSnapshot(ctx, func(sn *store.Snapshot, _ int64) error {
			names := strings1(t, sn, tableQuery)
			var carried []string
			for _, n := range names {
				if slices.Contains(derived, n) || strings.HasPrefix(n, "search_fts_") || strings.HasPrefix(n, "search_title_fts_") {
					continue
				}
				carried = append(carried, n)
				tb, err := tableNamed(n)
				if err != nil {
					t.Errorf("table %s is neither carried nor derived", n)
					continue
				}
				want := strings.Fields(strings.ReplaceAll(tb.columnList(), ",", ""))
				sort.Strings(want)
				if diff := cmp.Diff(want, strings1(t, sn, columnQuery, n)); diff != "" {
					t.Errorf("table %s: carried columns differ from the store's (-carried +store):\n%s", n, diff)
				}
			}
			if len(carried) != len(tables) {
				t.Errorf("store has %d carried tables %v, the backup lists %d", len(carried), carried, len(tables))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// strings1 returns the first column of a query's rows, sorted.
func strings1(t *testing.T, sn *store.Snapshot, q string, args ...any) []string {
	t.Helper()
	rows, err := sn.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
