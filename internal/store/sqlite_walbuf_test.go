package store

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The tests of sqlite_walbuf.go. They run on SQLite only: the VFS is SQLite's.

// walbufDSN opens path as the store's writer does (the VFS, synchronous FULL, WAL), or, with
// vfs false, as its readers do (the unix VFS).
func walbufDSN(path string, vfs bool, extra string) string {
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)" + extra
	if vfs {
		dsn += "&vfs=" + walbufName
	}
	return dsn
}

func openWALBufDB(t testing.TB, path string, vfs bool, extra string) *sql.DB {
	t.Helper()
	if err := registerWALBuf(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", walbufDSN(path, vfs, extra))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// walbufRow is row i's blob: 3,000 bytes that differ from row to row, so that a frame missing
// from the file or taken from the wrong place reads back as a different sum.
func walbufRow(i int) []byte {
	b := make([]byte, 3000)
	for j := range b {
		b[j] = byte(i*31 + j*7 + j/256)
	}
	return b
}

// walbufSum is what walbufSQLSum reads back for rows 1..n.
func walbufSum(n int) string {
	h := sha256.New()
	for i := 1; i <= n; i++ {
		h.Write(walbufRow(i))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// walbufSQLSum reads every row's blob in id order from db and hashes them.
func walbufSQLSum(t testing.TB, db *sql.DB) (string, int) {
	t.Helper()
	rows, err := db.Query(`SELECT b FROM t ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	h, n := sha256.New(), 0
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		h.Write(b)
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil)), n
}

// walbufInsert inserts rows from+1..to in one transaction.
func walbufInsert(t testing.TB, db *sql.DB, from, to int) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := from + 1; i <= to; i++ {
		if _, err := tx.Exec(`INSERT INTO t (id, b) VALUES (?, ?)`, i, walbufRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func walbufCheckIntegrity(t testing.TB, db *sql.DB) {
	t.Helper()
	var ok string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q, %v", ok, err)
	}
}

// TestWALBuf_CommitsSeen writes transactions of about 40 frames each through the VFS and checks,
// after each commit, that a connection through the unix VFS (as the store's readers are) reads
// every row of it; then that the commits survive a close and reopen. It counts what the VFS did:
// SQLite's WAL writes gathered into far fewer writes to the file.
func TestWALBuf_CommitsSeen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "walbuf.db")
	w := openWALBufDB(t, path, true, "")
	if _, err := w.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	r := openWALBufDB(t, path, false, "&_pragma=query_only(1)")
	writes, flushes := walbuf.writes.Load(), walbuf.flushes.Load()
	const commits, rows = 20, 40
	for c := 0; c < commits; c++ {
		walbufInsert(t, w, c*rows, (c+1)*rows)
		if got, n := walbufSQLSum(t, r); n != (c+1)*rows || got != walbufSum(n) {
			t.Fatalf("after commit %d the reader reads %d rows (sum %s), want %d (sum %s)", c+1, n, got, (c+1)*rows, walbufSum((c+1)*rows))
		}
	}
	dw, df := walbuf.writes.Load()-writes, walbuf.flushes.Load()-flushes
	// Each commit writes about 40 frames (80 writes) and flushes them once, before its sync.
	if dw < commits*2*rows || df > dw/20 || df < commits {
		t.Errorf("the VFS saw %d WAL writes and made %d: want at least %d, gathered into about one per commit", dw, df, commits*2*rows)
	}
	t.Logf("%d commits: %d WAL writes by SQLite, %d by the VFS", commits, dw, df)
	w.Close()
	r.Close()
	again := openWALBufDB(t, path, false, "")
	if got, n := walbufSQLSum(t, again); n != commits*rows || got != walbufSum(n) {
		t.Fatalf("reopened: %d rows (sum %s), want %d", n, got, commits*rows)
	}
	walbufCheckIntegrity(t, again)
}

// TestWALBuf_LargeTransaction commits one transaction of many times walbufCap bytes of frames
// with a page cache too small to hold it, so SQLite spills pages to the WAL halfway, reads them
// back and writes some of them again in place (writes the VFS must not gather with the others),
// and checks that another connection, and the file after a reopen, hold exactly what was
// written.
func TestWALBuf_LargeTransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "walbuf.db")
	w := openWALBufDB(t, path, true, "&_pragma=cache_size(100)")
	if _, err := w.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	const n = 2000 // about 6 MB of rows, over 1,500 frames
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		// Each row first inserted with another value, then set to its own after more rows: the
		// first value's page has been spilled by then.
		if _, err := tx.Exec(`INSERT INTO t (id, b) VALUES (?, ?)`, i, walbufRow(i+n)); err != nil {
			t.Fatal(err)
		}
		if j := i - 300; j >= 1 {
			if _, err := tx.Exec(`UPDATE t SET b = ? WHERE id = ?`, walbufRow(j), j); err != nil {
				t.Fatal(err)
			}
		}
	}
	for j := max(1, n-299); j <= n; j++ {
		if _, err := tx.Exec(`UPDATE t SET b = ? WHERE id = ?`, walbufRow(j), j); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var walSize int64
	if fi, err := os.Stat(path + "-wal"); err == nil {
		walSize = fi.Size()
	}
	if walSize < 4*walbufCap {
		t.Fatalf("the WAL holds %d bytes: want a transaction larger than the buffer (%d)", walSize, walbufCap)
	}
	r := openWALBufDB(t, path, false, "")
	if got, m := walbufSQLSum(t, r); m != n || got != walbufSum(n) {
		t.Fatalf("another connection reads %d rows (sum %s), want %d (sum %s)", m, got, n, walbufSum(n))
	}
	walbufCheckIntegrity(t, r)
	w.Close()
	r.Close()
	again := openWALBufDB(t, path, false, "")
	if got, m := walbufSQLSum(t, again); m != n || got != walbufSum(n) {
		t.Fatalf("reopened: %d rows (sum %s), want %d", m, got, n)
	}
}

// TestWALBuf_StoreOpensIt checks that the store's writer writes its WAL through the VFS: a
// write through the store's writer is seen by the VFS's counters, and its frames reach the file
// in fewer writes than SQLite made.
func TestWALBuf_StoreOpensIt(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writes, flushes := walbuf.writes.Load(), walbuf.flushes.Load()
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`CREATE TABLE walbuf_probe (id INTEGER PRIMARY KEY, b BLOB)`); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 50; i++ {
		if _, err := tx.Exec(`INSERT INTO walbuf_probe VALUES (?, ?)`, i, walbufRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	dw, df := walbuf.writes.Load()-writes, walbuf.flushes.Load()-flushes
	if dw < 100 || df == 0 || df > dw/10 {
		t.Fatalf("a 50-row commit on the store's writer: the VFS saw %d WAL writes and made %d; want about 100 and a few", dw, df)
	}
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM walbuf_probe`).Scan(&n); err != nil || n != 50 {
		t.Fatalf("the read pool counts %d rows (%v), want 50", n, err)
	}
}

// TestWALBuf_Killed runs a process that commits transactions through the VFS and says so after
// each commit returns, kills it with SIGKILL right after one of those lines, and checks that
// every commit it acknowledged is in the file: a commit returns only once its frames left the
// process's buffer.
func TestWALBuf_Killed(t *testing.T) {
	const rows = 40
	if path := os.Getenv("QUIRE_WALBUF_CHILD"); path != "" {
		db := openWALBufDB(t, path, true, "")
		if _, err := db.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		for c := 0; ; c++ {
			walbufInsert(t, db, c*rows, (c+1)*rows)
			fmt.Printf("committed %d\n", c+1)
		}
	}
	if testing.Short() {
		t.Skip("starts a process")
	}
	for round, after := range []int{1, 7, 25} {
		path := filepath.Join(t.TempDir(), "walbuf.db")
		cmd := exec.Command(os.Args[0], "-test.run=^TestWALBuf_Killed$", "-test.count=1")
		cmd.Env = append(os.Environ(), "QUIRE_WALBUF_CHILD="+path, "QUIRE_TEST_DATABASE_URL=")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := 0
		lines := bufio.NewScanner(out)
		for acked < after && lines.Scan() {
			if rest, ok := strings.CutPrefix(lines.Text(), "committed "); ok {
				if n, err := strconv.Atoi(rest); err == nil {
					acked = n
				}
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
		if acked < after {
			t.Fatalf("round %d: the child acknowledged %d commits before it ended, want %d", round, acked, after)
		}
		db := openWALBufDB(t, path, false, "")
		got, n := walbufSQLSum(t, db)
		if n < acked*rows || n%rows != 0 || got != walbufSum(n) {
			t.Fatalf("round %d: after a kill following commit %d the file holds %d rows (sum %s), want at least %d, whole commits, each as written", round, acked, n, got, acked*rows)
		}
		walbufCheckIntegrity(t, db)
		t.Logf("round %d: killed after commit %d acknowledged; %d commits in the file", round, acked, n/rows)
	}
}

// BenchmarkWALBuf_Commit commits transactions of about 70 frames (an append's count) through the
// unix VFS and through walbufVFS, synchronous FULL as the store's writer, and reports the
// process's CPU per commit (user and system: the writes are system calls).
//
//	go test -run '^$' -bench WALBuf_Commit -count 3 ./internal/store/
func BenchmarkWALBuf_Commit(b *testing.B) {
	for _, vfs := range []bool{false, true} {
		name := "unix"
		if vfs {
			name = walbufName
		}
		b.Run(name, func(b *testing.B) {
			db := openWALBufDB(b, filepath.Join(b.TempDir(), "walbuf.db"), vfs, "&_pragma=wal_autocheckpoint(0)")
			if _, err := db.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB NOT NULL)`); err != nil {
				b.Fatal(err)
			}
			const rows = 70
			before := walbufCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				walbufInsert(b, db, i*rows, (i+1)*rows)
				if i%50 == 49 { // keep the WAL short, as the upkeep's checkpoints do
					b.StopTimer()
					if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(walbufCPU()-before)/float64(b.N)/1e6, "cpu-ms/commit")
		})
	}
}

// walbufCPU is the process's CPU time so far, user and system, in nanoseconds.
func walbufCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// TestWALBuf_OnlyWAL checks that files other than a WAL pass through the VFS unchanged: a
// database in rollback-journal mode, its journal and a statement's temporary files, written
// through the VFS, leave its buffer alone and read back as written.
func TestWALBuf_OnlyWAL(t *testing.T) {
	if err := registerWALBuf(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "walbuf.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(DELETE)&_pragma=synchronous(FULL)&_pragma=temp_store(FILE)&_pragma=cache_size(20)&vfs="+walbufName)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	writes := walbuf.writes.Load()
	walbufInsert(t, db, 0, 200)
	// An index built by a sort too large for 20 pages of cache spills to temporary files.
	if _, err := db.Exec(`CREATE INDEX t_b ON t (b)`); err != nil {
		t.Fatal(err)
	}
	if d := walbuf.writes.Load() - writes; d != 0 {
		t.Fatalf("a database without a WAL: the VFS buffered %d writes, want none", d)
	}
	if got, n := walbufSQLSum(t, db); n != 200 || got != walbufSum(200) {
		t.Fatalf("%d rows (sum %s), want 200", n, got)
	}
	walbufCheckIntegrity(t, db)
	if _, err := os.Stat(path + "-wal"); !os.IsNotExist(err) {
		t.Fatalf("a WAL file exists (%v): the database was to stay in rollback-journal mode", err)
	}
}
