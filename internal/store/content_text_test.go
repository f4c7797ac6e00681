package store_test

import (
	"database/sql"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// oldContentText is quire_content_text's body before migration 00028: every value of the
// content as a row, filtered in SQL. The new body must give the very same text.
const oldContentText = `SELECT COALESCE(string_agg(COALESCE(v ->> 'plain_text', v ->> 'expression'), ' '), '')
	FROM jsonb_path_query($1::jsonb, 'strict $.**') AS v
	WHERE jsonb_typeof(v) = 'object'
	  AND (jsonb_typeof(v -> 'plain_text') = 'string' OR jsonb_typeof(v -> 'expression') = 'string')`

// TestContentTextUnchanged compares PostgreSQL's quire_content_text with its body before 00028
// on content of every shape a block stores, and on JSON it never stores: both keys in one
// object, non-string values under the keys, nesting, keys that jsonb reorders, scalars.
func TestContentTextUnchanged(t *testing.T) {
	db := postgresDB(t)
	for _, content := range []string{
		`{"rich_text":[{"type":"text","text":{"content":"a","link":null},"annotations":{"bold":false,"italic":false,"strikethrough":false,"underline":false,"code":false,"text_color":"default","background_color":"default"},"plain_text":"a","href":null}],"text_color":"default","background_color":"default"}`,
		`{"rich_text":[{"plain_text":"one"},{"type":"mention","mention":{"type":"user","user":{"id":"u"}},"plain_text":"@Ada"},{"plain_text":"three"}]}`,
		`{"caption":[{"plain_text":"cap"}],"rich_text":[{"plain_text":"code"}],"language":"go"}`,
		`{"expression":"E = mc^2"}`,
		`{"rich_text":[{"type":"equation","equation":{"expression":"x^2"},"plain_text":"x^2"}]}`,
		`{"cells":[[{"plain_text":"a"}],[{"plain_text":"b"},{"plain_text":""}]]}`,
		`{"rich_text":[{"plain_text":""},{"plain_text":""}]}`,
		`{"plain_text":"both","expression":"expr"}`,
		`{"plain_text":null,"expression":"only the expression"}`,
		`{"plain_text":7,"expression":false}`,
		`{"plain_text":{"plain_text":"inner"},"zz":[{"expression":"e1"},[{"plain_text":"deep"}]]}`,
		`{"zzzz":{"plain_text":"long key"},"a":{"plain_text":"short key"},"bb":[{"plain_text":"mid"}]}`,
		`{"title":[{"plain_text":"todo"}],"checked":true,"rich_text":[{"plain_text":"item"}],"children":[]}`,
		`{"url":"https://example.com","caption":[]}`,
		`{"rich_text":[]}`, `{}`, `[]`, `"plain_text"`, `null`, `12`,
		`[{"plain_text":1},{"expression":{"plain_text":"deep"}}]`,
		`[{"plain_text":"top"},{"plain_text":"array"}]`,
		`{"rich_text":[{"plain_text":"tab\tnew\nline \"q\" \\ \u00e9 \ud83d\ude00"}]}`,
	} {
		var want, got string
		if err := db.QueryRow(oldContentText, content).Scan(&want); err != nil {
			t.Fatalf("old body on %s: %v", content, err)
		}
		if err := db.QueryRow(`SELECT quire_content_text($1)`, content).Scan(&got); err != nil {
			t.Fatalf("quire_content_text(%s): %v", content, err)
		}
		if got != want {
			t.Errorf("quire_content_text(%s) = %q; the body before 00028 gave %q", content, got, want)
		}
	}
}

// TestBlocksSearchInsert_TextOnce checks that PostgreSQL's statement trigger on new blocks
// computes each block's search text once (the subquery it filters on was pulled up, which
// doubled the calls: 00028), and still writes an entry for each block with text, none for an
// empty one.
func TestBlocksSearchInsert_TextOnce(t *testing.T) {
	tx, w := seededPostgresTx(t)
	// Function calls are counted per transaction when tracked (pg_stat_xact_user_functions).
	if _, err := tx.ExecContext(ctx, `SET LOCAL track_functions = 'all'`); err != nil {
		t.Fatal(err)
	}
	contents := []string{`{"rich_text":[{"plain_text":"alpha"}]}`, `{"rich_text":[]}`, `{"rich_text":[{"plain_text":"gamma"}]}`}
	for i, c := range contents {
		if _, err := tx.ExecContext(ctx, `INSERT INTO blocks (id, workspace_id, page_id, parent_id, position, type, content,
			created_ms, created_by, edited_ms, edited_by) VALUES ($1, $2, 'p', 'p', $3, 'paragraph', $4, 1, 'u', 1, 'u')`,
			"b"+string(rune('0'+i)), w.ID, "a"+string(rune('0'+i)), c); err != nil {
			t.Fatal(err)
		}
	}
	var calls int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(calls), 0) FROM pg_stat_xact_user_functions
		WHERE funcname = 'quire_content_text'`).Scan(&calls); err != nil {
		t.Fatal(err)
	}
	if calls != len(contents) {
		t.Errorf("quire_content_text ran %d times for %d new blocks; want once each", calls, len(contents))
	}
	var texts []string
	rows, err := tx.QueryContext(ctx, `SELECT text FROM search_docs WHERE node_id = 'p' ORDER BY ref`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, s)
	}
	if len(texts) != 2 || texts[0] != "alpha" || texts[1] != "gamma" {
		t.Errorf("search entries of the new blocks = %q; want [alpha gamma]", texts)
	}
}

// postgresDB is a fresh migrated PostgreSQL database, opened directly.
func postgresDB(t *testing.T) *sql.DB {
	return openPostgres(t, testdb.PostgresURL(t))
}

// seededPostgresTx opens a migrated PostgreSQL store with a workspace and a transaction on its
// database, rolled back when the test ends.
func seededPostgresTx(t *testing.T) (*sql.Tx, *quire.Workspace) {
	t.Helper()
	url := testdb.PostgresURL(t)
	s, err := store.Open(ctx, store.Config{DatabaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	w, _ := seed(t, s)
	tx, err := openPostgres(t, url).BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	return tx, w
}

func openPostgres(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
