package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// rawReads runs the reads every request makes on SQLite (the token check joined with a node's
// read, a page of children) on connections the store opens itself, below database/sql and the
// driver: each statement prepared once per connection and stepped directly, each column read
// straight into the caller's field. Through database/sql a page GET's one statement spent more
// CPU around SQLite than in it (issue 15): the driver fetched and copied every column's name and
// declared type at each execution (newRows), boxed each value into a driver.Value and read each
// column with three calls, database/sql locked the connection for every row and converted every
// value again in Scan, and both allocated their row and statement bookkeeping per execution.
//
// The connections are opened SQLITE_OPEN_NOMUTEX: the pool hands a connection to one goroutine
// at a time (a channel send and receive order its uses), so SQLite's per-connection mutex, which
// the driver's FULLMUTEX connections take and release on every column read, guards nothing here.
// They are opened with the read pool's settings (busy_timeout, query_only) and mmap_size as
// the pool is made for (newRawReads).
//
// Nothing is kept between requests but the compiled statements: each query is one statement in
// SQLite's autocommit mode, whose read transaction begins at its first step and ends when it is
// reset, always before its connection goes back to the pool, so the next query reads the
// database as it is then (a token revoked through any server is refused by the next request).
// A query is not interrupted once started (no goroutine watches its context): these reads are
// key lookups and a walk of at most 501 index entries, shorter than the watch would cost.
//
// Memory: at most rawConns connections, each its SQLite handle (a page cache of SQLite's
// default 2 MB at most; reads map the file), its few prepared statements and a small buffer for
// the bound text.
type rawReads struct {
	path    string
	mmap    int          // each connection's mmap_size: sqliteMmapSize, or 0 (lookupMmapSize)
	observe func(string) // Config.Observe, told each statement before it runs
	idle    chan *rawConn
	done    chan struct{} // closed by close
	mu      sync.Mutex
	opened  int
	closed  bool
}

// rawConns bounds the pool as the database/sql read pool is bounded.
func rawConns() int { return max(4, 2*runtime.NumCPU()) }

// newRawReads is a pool of connections to path that map mmap bytes of the file (mmap_size).
func newRawReads(path string, mmap int, observe func(string)) *rawReads {
	n := rawConns()
	return &rawReads{path: path, mmap: mmap, observe: observe, idle: make(chan *rawConn, n), done: make(chan struct{})}
}

// lookupMmapSize is the mmap_size of the pool of key lookups (the token, the token joined with
// a node, a node: Store.lookups), which maps nothing. When another connection has committed,
// SQLite begins a connection's next read transaction by dropping its page cache and, when it
// maps the file, unmapping the whole map (pagerBeginReadTransaction), so each page the read
// then touches is faulted into a new map. A lookup touches about ten pages, and the request
// after a write (an append's next append, whose guard reads the token and the page) paid
// 0.6–0.8 ms of CPU for it at load 11–16: the munmap (and the other CPU's TLB flush) a fifth,
// the faults in btreeInitPage most of the rest; read by pread into the connection's own page
// cache instead, the same lookup took 0.1–0.16 ms (docs/performance.md, "Append, thirteenth
// pass"). Without commits a lookup's pages stay in that cache, already parsed, where a mapped
// page is parsed again at each fetch. The listings (children) keep the map: a page of 100
// children reads more pages, and unmapped it cost a fifth more CPU at c=16.
const lookupMmapSize = 0

// lookupCacheKiB is the page cache of each connection of the lookups' pool, 8 MiB where
// SQLite's default is 2 MB. Unmapped, the pages a lookup reads stay in that cache between
// commits; 2 MB did not hold the pages of the page GET row's 1,000 pages (the nodes' rows and
// key, the token), and at c=16 a lookup cost twice what the mapped one did (50 against 25 µs of
// CPU in a profile, load 9–10); with 8 MiB, 27–31 against 23–28 µs (load 7–10). At most four
// connections: 32 MiB.
const lookupCacheKiB = 8192

var errRawClosed = errors.New("store: closed")

// get takes an idle connection, opens one while fewer than the bound are open, or waits for one.
func (p *rawReads) get() (*rawConn, error) {
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errRawClosed
	}
	if p.opened < cap(p.idle) {
		p.opened++
		p.mu.Unlock()
		c, err := openRawConn(p.path, p.mmap)
		if err != nil {
			p.mu.Lock()
			p.opened--
			p.mu.Unlock()
		}
		return c, err
	}
	p.mu.Unlock()
	select {
	case c := <-p.idle:
		return c, nil
	case <-p.done:
		return nil, errRawClosed
	}
}

// close closes every connection, waiting for those in use to come back.
func (p *rawReads) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	n := p.opened
	p.mu.Unlock()
	close(p.done)
	for range n {
		(<-p.idle).close()
	}
}

// query runs query, binding args ($1, $2 … as text), and calls row for each row until it
// returns false or an error. The row's values are valid only during the call.
func (p *rawReads) query(ctx context.Context, query string, args []string, row func(r rawRow) (bool, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.observe != nil {
		p.observe(query)
	}
	c, err := p.get()
	if err != nil {
		return err
	}
	defer func() { p.idle <- c }()
	st, err := c.stmt(query)
	if err != nil {
		return err
	}
	// The reset ends the statement's read transaction, whatever happened.
	defer sqlite3.Xsqlite3_reset(c.tls, st.st)
	if err := c.bind(st, args); err != nil {
		return err
	}
	for {
		switch rc := sqlite3.Xsqlite3_step(c.tls, st.st); rc {
		case sqlite3.SQLITE_ROW:
			more, err := row(rawRow{tls: c.tls, st: st.st})
			if err != nil || !more {
				return err
			}
		case sqlite3.SQLITE_DONE:
			return nil
		default:
			return c.err(rc)
		}
	}
}

// cmem is the C memory at p as a pointer. SQLite's and libc's allocations are not Go's: the
// collector neither moves nor frees them, so the pointer stays valid until they are freed.
func cmem(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// rawConn is one SQLite connection of rawReads, its prepared statements by text (the fixed texts
// of this package: bounded by the code) and the buffer its bound text lives in.
type rawConn struct {
	tls   *libc.TLS
	db    uintptr
	stmts map[string]*rawStmt
	buf   uintptr // bound with SQLITE_STATIC: valid until the next query on this connection rebinds
	size  int
}

func openRawConn(path string, mmap int) (c *rawConn, err error) {
	c = &rawConn{tls: libc.NewTLS(), stmts: map[string]*rawStmt{}}
	name, err := libc.CString(path)
	if err != nil {
		c.tls.Close()
		return nil, err
	}
	defer libc.Xfree(c.tls, name)
	pdb := libc.Xmalloc(c.tls, 8)
	if pdb == 0 {
		c.tls.Close()
		return nil, errors.New("store: out of memory")
	}
	defer libc.Xfree(c.tls, pdb)
	*(*uintptr)(cmem(pdb)) = 0
	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, pdb, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_NOMUTEX, 0)
	c.db = *(*uintptr)(cmem(pdb))
	if rc != sqlite3.SQLITE_OK {
		err = c.err(rc)
		c.close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	sqlite3.Xsqlite3_busy_timeout(c.tls, c.db, sqliteBusyTimeoutMs)
	// As the read pool's DSN sets them (openSQLite says why) but for mmap_size, which is the
	// pool's, and an unmapped pool's larger cache (lookupCacheKiB); WAL is the file's, set by the
	// writer.
	pragmas := "PRAGMA query_only = 1; PRAGMA mmap_size = " + strconv.Itoa(mmap)
	if mmap == 0 {
		pragmas += "; PRAGMA cache_size = -" + strconv.Itoa(lookupCacheKiB)
	}
	if err := c.exec(pragmas); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *rawConn) exec(sql string) error {
	z, err := libc.CString(sql)
	if err != nil {
		return err
	}
	defer libc.Xfree(c.tls, z)
	if rc := sqlite3.Xsqlite3_exec(c.tls, c.db, z, 0, 0, 0); rc != sqlite3.SQLITE_OK {
		return c.err(rc)
	}
	return nil
}

// rawStmt is a statement prepared on a rawConn and, for each of its parameters in SQLite's
// order (the order of their first appearance in the text), which argument it takes: "$2" may
// come before "$1".
type rawStmt struct {
	st   uintptr
	args []int
}

// stmt returns query prepared on the connection, preparing it the first time.
func (c *rawConn) stmt(query string) (*rawStmt, error) {
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	z, err := libc.CString(query)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(c.tls, z)
	pst := libc.Xmalloc(c.tls, 8)
	if pst == 0 {
		return nil, errors.New("store: out of memory")
	}
	defer libc.Xfree(c.tls, pst)
	*(*uintptr)(cmem(pst)) = 0
	if rc := sqlite3.Xsqlite3_prepare_v3(c.tls, c.db, z, -1, sqlite3.SQLITE_PREPARE_PERSISTENT, pst, 0); rc != sqlite3.SQLITE_OK {
		return nil, c.err(rc)
	}
	st := &rawStmt{st: *(*uintptr)(cmem(pst))}
	if st.st == 0 {
		return nil, fmt.Errorf("store: no statement in %q", query)
	}
	n := int(sqlite3.Xsqlite3_bind_parameter_count(c.tls, st.st))
	for i := 1; i <= n; i++ {
		name := libc.GoString(sqlite3.Xsqlite3_bind_parameter_name(c.tls, st.st, int32(i)))
		arg, err := strconv.Atoi(strings.TrimPrefix(name, "$"))
		if !strings.HasPrefix(name, "$") || err != nil || arg < 1 {
			sqlite3.Xsqlite3_finalize(c.tls, st.st)
			return nil, fmt.Errorf("store: parameter %q of %q is not $n", name, query)
		}
		st.args = append(st.args, arg-1)
	}
	c.stmts[query] = st
	return st, nil
}

// bind binds args as text to $1, $2 …, copied one after the other into the connection's buffer
// (SQLite reads C memory; a Go string may move with its goroutine's stack).
func (c *rawConn) bind(st *rawStmt, args []string) error {
	total := 0
	for _, a := range args {
		total += len(a)
	}
	// Grown on first use even for empty arguments: SQLite binds a text at a null pointer as NULL.
	if total > c.size || c.buf == 0 {
		size := max(total, 256)
		p := libc.Xrealloc(c.tls, c.buf, libc.Tsize_t(size))
		if p == 0 {
			return errors.New("store: out of memory")
		}
		c.buf, c.size = p, size
	}
	var starts [4]uintptr
	at := starts[:0] // where each argument's copy starts
	if len(args) > len(starts) {
		at = make([]uintptr, 0, len(args))
	}
	next := c.buf
	for _, a := range args {
		at = append(at, next)
		if len(a) > 0 {
			copy(unsafe.Slice((*byte)(cmem(next)), len(a)), a)
		}
		next += uintptr(len(a))
	}
	for i, arg := range st.args {
		if arg >= len(args) {
			return fmt.Errorf("store: statement wants $%d, %d arguments given", arg+1, len(args))
		}
		// SQLITE_STATIC (0): the buffer stays as it is until this connection's next query.
		if rc := sqlite3.Xsqlite3_bind_text(c.tls, st.st, int32(i+1), at[arg], int32(len(args[arg])), 0); rc != sqlite3.SQLITE_OK {
			return c.err(rc)
		}
	}
	return nil
}

// err is rc with SQLite's message for the connection.
func (c *rawConn) err(rc int32) error {
	msg := libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))
	if c.db != 0 {
		msg += ": " + libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db))
	}
	return fmt.Errorf("sqlite: %s (%d)", msg, rc)
}

func (c *rawConn) close() {
	for q, st := range c.stmts {
		sqlite3.Xsqlite3_finalize(c.tls, st.st)
		delete(c.stmts, q)
	}
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	if c.buf != 0 {
		libc.Xfree(c.tls, c.buf)
		c.buf = 0
	}
	c.tls.Close()
}
