package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// boundArg is a random value of a type execBound encodes, and its parameter's type.
func boundArg(r *rand.Rand) (any, uint32) {
	str := func() string {
		parts := []string{"", "a", "é", "☃", "𝄞", `"`, `\`, ",", "{", "}", " ", "NULL", "x y", "\t"}
		var sb strings.Builder
		for range r.IntN(12) {
			sb.WriteString(parts[r.IntN(len(parts))])
		}
		return sb.String()
	}
	switch r.IntN(5) {
	case 0:
		return str(), pgtype.TextOID
	case 1:
		return r.IntN(2) == 1, pgtype.BoolOID
	case 2:
		ints := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, r.Int64(), -r.Int64()}
		return ints[r.IntN(len(ints))], pgtype.Int8OID
	case 3:
		var a []string
		switch r.IntN(4) {
		case 0: // nil: NULL
		case 1:
			a = []string{}
		default:
			for range 1 + r.IntN(5) {
				a = append(a, str())
			}
		}
		return a, pgtype.TextArrayOID
	}
	return nil, pgtype.TextOID
}

// TestEncodeBind_AsPgx: the Bind, Execute and Sync that execBound writes are, byte for byte,
// what pgx sends for the same arguments and parameter types (pgx's ExtendedQueryBuilder:
// strings as text, the rest in the codec's preferred format, through pgtype's encoders), for
// 2,000 random argument lists. A value in another format, a wrong length or a missing NULL
// fails it.
func TestEncodeBind_AsPgx(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2))
	m := pgtype.NewMap()
	for i := range 2000 {
		n := r.IntN(30)
		if i == 0 {
			n = 0
		}
		args, oids := make([]any, n), make([]uint32, n)
		for j := range n {
			args[j], oids[j] = boundArg(r)
		}
		got, err := store.EncodeBindForTest("stmt_x", oids, args)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		bind := &pgproto3.Bind{PreparedStatement: "stmt_x", ParameterFormatCodes: make([]int16, n), Parameters: make([][]byte, n)}
		for j, a := range args {
			f := m.FormatCodeForOID(oids[j])
			if _, ok := a.(string); ok {
				f = pgtype.TextFormatCode
			}
			bind.ParameterFormatCodes[j] = f
			// A non-nil buffer, as pgx's ExtendedQueryBuilder passes: nil back is NULL.
			v, err := m.Encode(oids[j], f, a, []byte{})
			if err != nil {
				t.Fatalf("case %d: pgx encodes %#v: %v", i, a, err)
			}
			bind.Parameters[j] = v
		}
		want, _ := bind.Encode(nil)
		want, _ = (&pgproto3.Execute{}).Encode(want)
		want, _ = (&pgproto3.Sync{}).Encode(want)
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d: args %#v\ngot  %x\nwant %x", i, args, got, want)
		}
	}
}

// TestEncodeBind_TypeMismatch: a value whose type does not fit its parameter is an error
// (errUnbound, which leaves the statement to database/sql), not a value PostgreSQL would read
// otherwise (a bool sent in binary to a text parameter).
func TestEncodeBind_TypeMismatch(t *testing.T) {
	for _, c := range []struct {
		arg any
		oid uint32
	}{
		{true, pgtype.TextOID}, {int64(1), pgtype.Int4OID}, {[]string{"a"}, pgtype.TextOID}, {int64(1), pgtype.TextOID},
	} {
		if b, err := store.EncodeBindForTest("s", []uint32{c.oid}, []any{c.arg}); err == nil {
			t.Errorf("%#v for type %d: %x, nil; want an error", c.arg, c.oid, b)
		}
	}
	if _, err := store.EncodeBindForTest("s", []uint32{pgtype.TextOID}, nil); err == nil {
		t.Error("no argument for one parameter: nil error")
	}
}

// boundRow is a row of bound_t as read back.
type boundRow struct {
	S    sql.NullString
	B    sql.NullBool
	I    sql.NullInt64
	A    sql.NullString // the array as PostgreSQL prints it
	Null sql.NullString
}

// TestExecBound_StoresAsPgx (PostgreSQL): rows written through execBound and through
// database/sql (pgx) with the same random values read back the same, each column; and the
// statement went out through execBound (prepared under pgx's "stmt_" name for a text, where
// pgx's statement cache names its own "stmtcache_").
func TestExecBound_StoresAsPgx(t *testing.T) {
	s := testdb.Postgres(t)
	execAll(t, s, `CREATE TABLE bound_t (k int, via text, s text, b boolean, i bigint, a text[], n text)`)
	const q = `INSERT INTO bound_t (k, via, s, b, i, a, n) VALUES ($1::int8::int, $2, $3, $4, $5, $6, $7)`
	r := rand.New(rand.NewPCG(14, 3))
	for k := range 120 {
		str, _ := boundArg(r)
		if _, ok := str.(string); !ok {
			str = "s"
		}
		ints := []int64{0, -1, math.MaxInt64, math.MinInt64, r.Int64()}
		arrays := [][]string{nil, {}, {"", "a,b", `"q"`, `\`, "NULL", "𝄞"}, {strings.Repeat("x", 70000)}}
		vals := []any{str, r.IntN(2) == 1, ints[r.IntN(len(ints))], arrays[r.IntN(len(arrays))], nil}
		err := s.InTx(ctx, func(tx *store.Tx) error {
			bound, err := tx.ExecBoundForTest(ctx, q, append([]any{int64(k), "bound"}, vals...))
			if err != nil || !bound {
				t.Fatalf("row %d: execBound = %v, %v; want true, nil", k, bound, err)
			}
			return tx.Exec(ctx, q, append([]any{int64(k), "pgx"}, vals...)...)
		})
		if err != nil {
			t.Fatalf("row %d: %v", k, err)
		}
	}
	rows := func(via string) []boundRow {
		var out []boundRow
		mustTx(t, s, func(tx *store.Tx) error {
			rs, err := tx.Query(ctx, `SELECT s, b, i, a::text, n FROM bound_t WHERE via = $1 ORDER BY k`, via)
			if err != nil {
				return err
			}
			defer rs.Close()
			for rs.Next() {
				var b boundRow
				if err := rs.Scan(&b.S, &b.B, &b.I, &b.A, &b.Null); err != nil {
					return err
				}
				out = append(out, b)
			}
			return rs.Err()
		})
		return out
	}
	bound, viaPgx := rows("bound"), rows("pgx")
	if len(bound) != 120 {
		t.Fatalf("%d rows through execBound; want 120", len(bound))
	}
	if d := cmp.Diff(viaPgx, bound); d != "" {
		t.Fatalf("rows through execBound differ from pgx's (-pgx +bound):\n%s", d)
	}
}

// TestExecBound_LeavesOthers: a statement with an argument execBound does not encode (a
// float, bytes, a time, an int), or one whose type does not fit its parameter (a bool for a
// text one), is left to database/sql, no Bind sent; the transaction goes on, and database/sql
// then runs it (or refuses the mismatched one, pgx's encoding error) as before.
func TestExecBound_LeavesOthers(t *testing.T) {
	s := testdb.Postgres(t)
	var bound bool
	var boundErr, sqlErr error
	err := s.InTx(ctx, func(tx *store.Tx) error {
		bound, boundErr = tx.ExecBoundForTest(ctx, `SELECT $1::text`, []any{true})
		sqlErr = tx.Exec(ctx, `SELECT $1::text`, true)
		return nil
	})
	if err != nil || bound || boundErr != nil {
		t.Fatalf("a bool for a text parameter: execBound = %v, %v (transaction %v); want false, nil", bound, boundErr, err)
	}
	if sqlErr == nil {
		t.Fatal("database/sql ran a bool for a text parameter; want pgx's refusal, as before")
	}
	for _, a := range []any{1.5, []byte("x"), time.Now(), int(1), int32(1)} {
		err := s.InTx(ctx, func(tx *store.Tx) error {
			if bound, boundErr = tx.ExecBoundForTest(ctx, `SELECT $1`, []any{a}); bound || boundErr != nil {
				return nil
			}
			return tx.Exec(ctx, `SELECT 1`)
		})
		if err != nil || bound || boundErr != nil {
			t.Fatalf("%T: execBound = %v, %v, the transaction after: %v; want false, nil, nil", a, bound, boundErr, err)
		}
	}
}

// TestExecBound_StatementError (PostgreSQL): a statement that fails in PostgreSQL (a unique
// violation) returns its *pgconn.PgError, the transaction rolls back, and the connection,
// read up to the end of the failed exchange, serves the next transactions: each of 20 later
// writes through execBound lands, and the failed one left nothing.
func TestExecBound_StatementError(t *testing.T) {
	s := testdb.Postgres(t)
	execAll(t, s, `CREATE TABLE bound_u (k bigint PRIMARY KEY, v text)`)
	const q = `INSERT INTO bound_u (k, v) VALUES ($1, $2)`
	write := func(k int64, v string) error {
		return s.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.ExecBoundForTest(ctx, q, []any{k, v})
			return err
		})
	}
	if err := write(1, "first"); err != nil {
		t.Fatal(err)
	}
	err := s.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.ExecBoundForTest(ctx, q, []any{int64(2), "rolled back"}); err != nil {
			return err
		}
		_, err := tx.ExecBoundForTest(ctx, q, []any{int64(1), "again"})
		return err
	})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("a duplicate key: %v; want a PgError 23505", err)
	}
	for k := int64(10); k < 30; k++ {
		if err := write(k, "after"); err != nil {
			t.Fatalf("write %d after the error: %v", k, err)
		}
	}
	var n int
	var keys string
	scanOne(t, s, `SELECT count(*), string_agg(v, ',' ORDER BY k) FILTER (WHERE k < 10) FROM bound_u`, &n, &keys)
	if n != 21 || keys != "first" {
		t.Fatalf("rows = %d (%q); want 21, the first alone below 10", n, keys)
	}
}

// TestExecBound_Cancelled (PostgreSQL): a statement through execBound still running when its
// write's grace after the request's end is over returns at once with the context's error; the
// connection it broke off is not pooled, and the next writes land.
func TestExecBound_Cancelled(t *testing.T) {
	s := testdb.Postgres(t)
	defer store.SetWriteGraceForTest(50 * time.Millisecond)()
	execAll(t, s, `CREATE TABLE bound_c (k bigint, v text)`)
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.InTx(short, func(tx *store.Tx) error {
		_, err := tx.ExecBoundForTest(short, `INSERT INTO bound_c SELECT $1, $2 FROM pg_sleep(3)`, []any{int64(0), "slow"})
		return err
	})
	if err == nil {
		t.Fatal("a write past its deadline: nil error")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("a write past its deadline returned after %v", d)
	}
	for k := int64(1); k <= 10; k++ {
		err := s.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.ExecBoundForTest(ctx, `INSERT INTO bound_c VALUES ($1, $2)`, []any{k, "after"})
			return err
		})
		if err != nil {
			t.Fatalf("write %d after: %v", k, err)
		}
	}
	time.Sleep(3 * time.Second) // the broken-off statement would have ended by now
	var after, slow int
	scanOne(t, s, `SELECT count(*) FILTER (WHERE v = 'after'), count(*) FILTER (WHERE v = 'slow') FROM bound_c`, &after, &slow)
	if after != 10 || slow != 0 {
		t.Fatalf("rows after = %d, of the broken-off write = %d; want 10, 0", after, slow)
	}
}

// TestInsertBlocks_Bound: on PostgreSQL both forms of InsertBlocks' statement (the blocks of
// an append, whose shared columns are bound once and whose search entries it writes, and blocks
// bound column by column) go out through execBound: each is prepared under pgx's name for an
// explicitly prepared text ("stmt_…"), where database/sql's path would have used pgx's statement
// cache ("stmtcache_…"). TestInsertBlocks_EveryColumn reads back what they write.
func TestInsertBlocks_Bound(t *testing.T) {
	s := testdb.Postgres(t)
	w, _ := seed(t, s)
	page := newNode(w.ID, "")
	block := func(i int, by string) *quire.Block {
		return &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID, Position: "a" + strings.Repeat("b", i),
			Type: "paragraph", Content: []byte(`{"rich_text":[{"plain_text":"bound ☃"}]}`), Version: 1,
			CreatedMs: 10, CreatedBy: by, EditedMs: 20, EditedBy: by}
	}
	var prepared []string
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.InsertNode(ctx, page); err != nil {
			return err
		}
		if err := tx.InsertBlocks(ctx, []*quire.Block{block(0, "ada"), block(1, "ada")}); err != nil {
			return err
		}
		if err := tx.InsertBlocks(ctx, []*quire.Block{block(2, "ada"), block(3, "bob")}); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT left(statement, 30) FROM pg_prepared_statements
			WHERE name LIKE 'stmt\_%' AND statement ~ '^(WITH entries|INSERT INTO blocks)' ORDER BY 1`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var st string
			if err := rows.Scan(&st); err != nil {
				return err
			}
			prepared = append(prepared, st)
		}
		return rows.Err()
	})
	want := []string{"INSERT INTO blocks (id, parent", "WITH entries AS (INSERT INTO s"}
	if d := cmp.Diff(want, prepared); d != "" {
		t.Fatalf("statements prepared by execBound (-want +got):\n%s", d)
	}
}

// execAll runs each of stmts in its own transaction.
func execAll(t *testing.T, s *store.Store, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		mustTx(t, s, func(tx *store.Tx) error { return tx.Exec(ctx, q) })
	}
}

// scanOne reads the one row of query into dest.
func scanOne(t *testing.T, s *store.Store, query string, dest ...any) {
	t.Helper()
	mustTx(t, s, func(tx *store.Tx) error { return tx.QueryRowForTest(ctx, query).Scan(dest...) })
}
