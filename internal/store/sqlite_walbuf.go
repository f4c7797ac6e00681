package store

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// The SQLite store's connections that write open their files through walbufVFS, a VFS that
// wraps SQLite's default one ("unix") and changes one thing: a WAL file's writes are gathered in
// a buffer and handed to the file in a few large writes instead of one each. SQLite writes each
// frame of a commit with two writes (its 24-byte header, then the page), each a system call of
// about 4.6 µs on the machine issue 15 measures: an append of 100 paragraphs commits about 67
// frames (134 writes, 0.6 ms of its 5.5 ms), and seeding 100 records about 200. The frames of a
// transaction are sequential in the file, so the buffer holds one run of bytes, and a flush
// writes it in pieces of walbufChunk: an append's frames in 3 writes.
//
// Durability and what other connections see are unchanged, because the buffer is flushed
// before anything could depend on its bytes being in the file:
//   - before every call on the WAL file but a write that continues the buffer: its xSync (a
//     commit is acknowledged only after its frames are written and then synced, as before), its
//     xRead, xFileSize, xTruncate, xClose, its locks and file controls;
//   - before a write that does not continue the buffer (SQLite writing a frame again), and when
//     the buffer would pass walbufCap;
//   - before every lock call on the database file the WAL belongs to (xLock, xUnlock, xShmLock,
//     xShmBarrier). SQLite publishes new frames to other connections and processes by writing
//     the wal-index (the -shm file) and its header behind a barrier, and ends a write transaction
//     by releasing a shm lock, so no connection can be told of a frame still in the buffer. With
//     synchronous=FULL, the store's setting, the commit's xSync has flushed already.
//
// A flush that fails returns the wrapped write's error code (SQLITE_IOERR_WRITE, or SQLITE_FULL)
// from the call that triggered it, and drops the buffer, as a failed write would have been: the
// transaction fails. Only xShmBarrier cannot return an error; a flush failing there marks the
// file, and every later call on it fails. With synchronous=FULL the barrier never has anything
// to flush (the xSync before it did), so this only matters under a weaker setting.
//
// Every other file (the database file's reads and writes, the rollback journal, temporary
// files, the -shm mapping, which the unix VFS opens itself) keeps the unix VFS's own methods;
// the database file's table differs from unix's only in its lock calls. The read pools open
// through the unix VFS directly: they never write the WAL.
//
// Memory: each open file carries a walbufFile after the unix VFS's own; a WAL file that is
// written allocates a buffer of walbufCap bytes in C memory at its first write, freed when it
// closes (the writer's and the checkpointer's connections: at most two).
const (
	walbufName = "quire-walbuf"
	walbufCap  = 1 << 20 // bytes: 256 frames of 4 KiB; a larger transaction flushes as it goes
	// walbufChunk bounds each write a flush makes: the unix VFS's write takes at most 0x1ffff
	// bytes at a time (seekAndWriteFd masks the count with it, assuming SQLite never writes
	// more than a page), so a flush is one write per 31 pages, an append's about 3.
	walbufChunk = 0x1f000
)

// walbufFile is what walbufVFS keeps after the unix VFS's file, in the same C allocation
// (SQLite allocates szOsFile bytes per file).
type walbufFile struct {
	methods uintptr // the unix VFS's io methods for this file, which ours call
	peer    uintptr // a database file: its open WAL file, or 0; a WAL file: its database file
	buf     uintptr // a WAL file: walbufCap bytes of C memory, 0 until its first write
	start   int64   // the file offset of buf's first byte
	n       int32   // bytes in buf
	failed  int32   // a WAL file: a flush no caller could be told of failed
}

// walbufTables are our io methods for the files of one unix io-methods table.
type walbufTables struct{ db, wal uintptr }

var walbuf struct {
	once   sync.Once
	err    error
	unix   uintptr // the wrapped VFS
	off    uintptr // where a file's walbufFile begins: unix's szOsFile, rounded up to 8
	mu     sync.Mutex
	tables map[uintptr]walbufTables // by the unix file's io methods; C memory, never freed

	// For tests and measurements: WAL writes SQLite made, and the writes that reached the file.
	writes, flushes atomic.Int64
}

// registerWALBuf registers walbufVFS with SQLite once per process; a DSN selects it with
// vfs=quire-walbuf.
func registerWALBuf() error {
	walbuf.once.Do(func() { walbuf.err = registerWALBufOnce() })
	return walbuf.err
}

func registerWALBufOnce() error {
	tls := libc.NewTLS()
	defer tls.Close()
	unix := sqlite3.Xsqlite3_vfs_find(tls, 0)
	if unix == 0 {
		return errors.New("store: SQLite has no default VFS")
	}
	u := (*sqlite3.Tsqlite3_vfs)(cmem(unix))
	p := libc.Xcalloc(tls, 1, libc.Tsize_t(unsafe.Sizeof(sqlite3.Tsqlite3_vfs{})))
	name, err := libc.CString(walbufName)
	if p == 0 || err != nil {
		return errors.New("store: out of memory")
	}
	walbuf.unix = unix
	walbuf.off = (uintptr(u.FszOsFile) + 7) &^ 7
	walbuf.tables = map[uintptr]walbufTables{}
	// Every method but xOpen is unix's: they take the VFS only to reach their own settings.
	v := (*sqlite3.Tsqlite3_vfs)(cmem(p))
	*v = *u
	v.FpNext = 0
	v.FzName = name
	v.FszOsFile = int32(walbuf.off + unsafe.Sizeof(walbufFile{}))
	v.FxOpen = cfunc(walbufOpen)
	if rc := sqlite3.Xsqlite3_vfs_register(tls, p, 0); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("store: register VFS %s: SQLite error %d", walbufName, rc)
	}
	return nil
}

// cfunc is Go function f as a C function pointer, the form modernc's SQLite calls through
// (a pointer to the func value; f is a top-level function, so it never moves).
func cfunc[F any](f F) uintptr { return *(*uintptr)(unsafe.Pointer(&f)) }

// gofunc is C function pointer p as a Go function of type F, for calling unix's methods.
func gofunc[F any](p uintptr) F { return *(*F)(unsafe.Pointer(&p)) }

func walbufOf(pFile uintptr) *walbufFile { return (*walbufFile)(cmem(pFile + walbuf.off)) }

// walbufOpen opens the file with the unix VFS, then gives a database or WAL file our methods.
func walbufOpen(tls *libc.TLS, pVfs, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	unixOpen := gofunc[func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32]((*sqlite3.Tsqlite3_vfs)(cmem(walbuf.unix)).FxOpen)
	rc := unixOpen(tls, walbuf.unix, zName, pFile, flags, pOutFlags)
	f := walbufOf(pFile)
	*f = walbufFile{}
	file := (*sqlite3.Tsqlite3_file)(cmem(pFile))
	if rc != sqlite3.SQLITE_OK || file.FpMethods == 0 || flags&(sqlite3.SQLITE_OPEN_MAIN_DB|sqlite3.SQLITE_OPEN_WAL) == 0 {
		return rc
	}
	t := walbufTablesFor(file.FpMethods)
	f.methods = file.FpMethods
	if flags&sqlite3.SQLITE_OPEN_MAIN_DB != 0 {
		file.FpMethods = t.db
		return rc
	}
	file.FpMethods = t.wal
	// The WAL's database file (valid to ask in xOpen only) learns of it, to flush it on its locks.
	if db := sqlite3.Xsqlite3_database_file_object(tls, zName); db != 0 && walbufIsDB((*sqlite3.Tsqlite3_file)(cmem(db)).FpMethods) {
		f.peer = db
		walbufOf(db).peer = pFile
	}
	return rc
}

// walbufTablesFor returns our io methods for files whose unix methods are orig, made once.
func walbufTablesFor(orig uintptr) walbufTables {
	walbuf.mu.Lock()
	defer walbuf.mu.Unlock()
	if t, ok := walbuf.tables[orig]; ok {
		return t
	}
	o := (*sqlite3.Tsqlite3_io_methods)(cmem(orig))
	size := libc.Tsize_t(unsafe.Sizeof(sqlite3.Tsqlite3_io_methods{}))
	tls := libc.NewTLS()
	t := walbufTables{db: libc.Xmalloc(tls, size), wal: libc.Xmalloc(tls, size)}
	tls.Close()
	if t.db == 0 || t.wal == 0 {
		panic("store: out of C memory for the VFS's methods")
	}
	db := (*sqlite3.Tsqlite3_io_methods)(cmem(t.db))
	*db = *o
	db.FxClose = cfunc(walbufDBClose)
	db.FxLock = cfunc(walbufDBLock)
	db.FxUnlock = cfunc(walbufDBUnlock)
	if o.FiVersion >= 2 && o.FxShmLock != 0 {
		db.FxShmLock = cfunc(walbufDBShmLock)
		db.FxShmBarrier = cfunc(walbufDBShmBarrier)
	}
	wal := (*sqlite3.Tsqlite3_io_methods)(cmem(t.wal))
	*wal = *o
	wal.FxClose = cfunc(walbufClose)
	wal.FxRead = cfunc(walbufRead)
	wal.FxWrite = cfunc(walbufWrite)
	wal.FxTruncate = cfunc(walbufTruncate)
	wal.FxSync = cfunc(walbufSync)
	wal.FxFileSize = cfunc(walbufFileSize)
	wal.FxLock = cfunc(walbufLock)
	wal.FxUnlock = cfunc(walbufUnlock)
	wal.FxCheckReservedLock = cfunc(walbufCheckReservedLock)
	wal.FxFileControl = cfunc(walbufFileControl)
	if o.FiVersion >= 3 && o.FxFetch != 0 {
		wal.FxFetch = cfunc(walbufFetch)
	}
	walbuf.tables[orig] = t
	return t
}

func walbufIsDB(methods uintptr) bool {
	walbuf.mu.Lock()
	defer walbuf.mu.Unlock()
	for _, t := range walbuf.tables {
		if t.db == methods {
			return true
		}
	}
	return false
}

// walbufFlush writes WAL file pFile's buffer, if it holds anything, in one write.
func walbufFlush(tls *libc.TLS, pFile uintptr) int32 {
	f := walbufOf(pFile)
	if f.failed != 0 {
		return sqlite3.SQLITE_IOERR_WRITE
	}
	if f.n == 0 {
		return sqlite3.SQLITE_OK
	}
	n := f.n
	f.n = 0
	write := gofunc[func(*libc.TLS, uintptr, uintptr, int32, int64) int32](walbufOrig(pFile).FxWrite)
	for done := int32(0); done < n; done += walbufChunk {
		walbuf.flushes.Add(1)
		if rc := write(tls, pFile, f.buf+uintptr(done), min(walbufChunk, n-done), f.start+int64(done)); rc != sqlite3.SQLITE_OK {
			return rc
		}
	}
	return sqlite3.SQLITE_OK
}

// walbufFlushPeer flushes the WAL of database file pFile, if it has one open.
func walbufFlushPeer(tls *libc.TLS, pFile uintptr) int32 {
	if wal := walbufOf(pFile).peer; wal != 0 {
		return walbufFlush(tls, wal)
	}
	return sqlite3.SQLITE_OK
}

func walbufWrite(tls *libc.TLS, pFile, zBuf uintptr, iAmt int32, iOfst int64) int32 {
	f := walbufOf(pFile)
	walbuf.writes.Add(1)
	if f.n > 0 && (iOfst != f.start+int64(f.n) || int64(f.n)+int64(iAmt) > walbufCap) {
		if rc := walbufFlush(tls, pFile); rc != sqlite3.SQLITE_OK {
			return rc
		}
	}
	if f.failed != 0 {
		return sqlite3.SQLITE_IOERR_WRITE
	}
	if f.buf == 0 && iAmt <= walbufChunk {
		f.buf = libc.Xmalloc(tls, walbufCap)
	}
	if f.buf == 0 || iAmt > walbufChunk {
		walbuf.flushes.Add(1)
		return gofunc[func(*libc.TLS, uintptr, uintptr, int32, int64) int32](walbufOrig(pFile).FxWrite)(tls, pFile, zBuf, iAmt, iOfst)
	}
	if f.n == 0 {
		f.start = iOfst
	}
	copy(unsafe.Slice((*byte)(cmem(f.buf+uintptr(f.n))), iAmt), unsafe.Slice((*byte)(cmem(zBuf)), iAmt))
	f.n += iAmt
	return sqlite3.SQLITE_OK
}

func walbufClose(tls *libc.TLS, pFile uintptr) int32 {
	rc := walbufFlush(tls, pFile)
	f := walbufOf(pFile)
	if f.peer != 0 {
		walbufOf(f.peer).peer = 0
	}
	if f.buf != 0 {
		libc.Xfree(tls, f.buf)
	}
	unixClose := gofunc[func(*libc.TLS, uintptr) int32](walbufOrig(pFile).FxClose)
	if rc2 := unixClose(tls, pFile); rc == sqlite3.SQLITE_OK {
		rc = rc2
	}
	return rc
}

// The WAL file's other methods flush, then call unix's.

func walbufRead(tls *libc.TLS, pFile, zBuf uintptr, iAmt int32, iOfst int64) int32 {
	if rc := walbufFlush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, uintptr, int32, int64) int32](walbufOrig(pFile).FxRead)(tls, pFile, zBuf, iAmt, iOfst)
}

func walbufTruncate(tls *libc.TLS, pFile uintptr, size int64) int32 {
	if rc := walbufFlush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, int64) int32](walbufOrig(pFile).FxTruncate)(tls, pFile, size)
}

func walbufSync(tls *libc.TLS, pFile uintptr, flags int32) int32 {
	if rc := walbufFlush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, int32) int32](walbufOrig(pFile).FxSync)(tls, pFile, flags)
}

func walbufFileSize(tls *libc.TLS, pFile, pSize uintptr) int32 {
	if rc := walbufFlush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, uintptr) int32](walbufOrig(pFile).FxFileSize)(tls, pFile, pSize)
}

func walbufLock(tls *libc.TLS, pFile uintptr, lock int32) int32 {
	if rc := walbufFlush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, int32) int32](walbufOrig(pFile).FxLock)(tls, pFile, lock)
}

func walbufUnlock(tls *libc.TLS, pFile uintptr, lock int32) int32 {
	if rc := walbufFlush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, int32) int32](walbufOrig(pFile).FxUnlock)(tls, pFile, lock)
}

func walbufCheckReservedLock(tls *libc.TLS, pFile, pResOut uintptr) int32 {
	if rc := walbufFlush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, uintptr) int32](walbufOrig(pFile).FxCheckReservedLock)(tls, pFile, pResOut)
}

func walbufFileControl(tls *libc.TLS, pFile uintptr, op int32, pArg uintptr) int32 {
	if rc := walbufFlush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, int32, uintptr) int32](walbufOrig(pFile).FxFileControl)(tls, pFile, op, pArg)
}

func walbufFetch(tls *libc.TLS, pFile uintptr, iOfst int64, iAmt int32, pp uintptr) int32 {
	if rc := walbufFlush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, int64, int32, uintptr) int32](walbufOrig(pFile).FxFetch)(tls, pFile, iOfst, iAmt, pp)
}

// The database file's lock calls flush its WAL first, then call unix's.

func walbufDBLock(tls *libc.TLS, pFile uintptr, lock int32) int32 {
	if rc := walbufFlushPeer(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, int32) int32](walbufOrig(pFile).FxLock)(tls, pFile, lock)
}

func walbufDBUnlock(tls *libc.TLS, pFile uintptr, lock int32) int32 {
	if rc := walbufFlushPeer(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, int32) int32](walbufOrig(pFile).FxUnlock)(tls, pFile, lock)
}

func walbufDBShmLock(tls *libc.TLS, pFile uintptr, offset, n, flags int32) int32 {
	if rc := walbufFlushPeer(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return gofunc[func(*libc.TLS, uintptr, int32, int32, int32) int32](walbufOrig(pFile).FxShmLock)(tls, pFile, offset, n, flags)
}

func walbufDBShmBarrier(tls *libc.TLS, pFile uintptr) {
	if wal := walbufOf(pFile).peer; wal != 0 && walbufFlush(tls, wal) != sqlite3.SQLITE_OK {
		walbufOf(wal).failed = 1
	}
	gofunc[func(*libc.TLS, uintptr)](walbufOrig(pFile).FxShmBarrier)(tls, pFile)
}

func walbufDBClose(tls *libc.TLS, pFile uintptr) int32 {
	f := walbufOf(pFile)
	if f.peer != 0 { // SQLite closes the WAL first; should it not, the WAL forgets this file
		walbufOf(f.peer).peer = 0
	}
	return gofunc[func(*libc.TLS, uintptr) int32](walbufOrig(pFile).FxClose)(tls, pFile)
}

// walbufOrig is unix's io methods for file pFile.
func walbufOrig(pFile uintptr) *sqlite3.Tsqlite3_io_methods {
	return (*sqlite3.Tsqlite3_io_methods)(cmem(walbufOf(pFile).methods))
}
