package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// rawRow is the current row of a rawReads query, read column by column with one or two calls
// into SQLite each (the driver made three, plus a box per value).
type rawRow struct {
	tls *libc.TLS
	st  uintptr
}

func (r rawRow) kind(i int) int32 { return sqlite3.Xsqlite3_column_type(r.tls, r.st, int32(i)) }

func (r rawRow) int64(i int) int64 { return sqlite3.Xsqlite3_column_int64(r.tls, r.st, int32(i)) }

func (r rawRow) null(i int) bool { return r.kind(i) == sqlite3.SQLITE_NULL }

// boolean is a boolean column: an integer on SQLite.
func (r rawRow) boolean(i int) bool { return r.int64(i) != 0 }

// mem is column i's bytes in SQLite's memory, valid until the row moves on: the blob read
// returns a text's UTF-8 bytes as they are, where the text read would add a terminator.
func (r rawRow) mem(i int) []byte {
	p := sqlite3.Xsqlite3_column_blob(r.tls, r.st, int32(i))
	n := sqlite3.Xsqlite3_column_bytes(r.tls, r.st, int32(i))
	if p == 0 || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(cmem(p)), n)
}

// text is column i as a Go string of its own.
func (r rawRow) text(i int) string { return string(r.mem(i)) }

// bytes is column i as bytes of their own, nil when empty.
func (r rawRow) bytes(i int) []byte {
	m := r.mem(i)
	if len(m) == 0 {
		return nil
	}
	return append([]byte(nil), m...)
}

// Scan reads the row into dest as database/sql's Scan does for the column types the store's
// rows hold: *string, *sql.NullString, *[]byte, *int64, *bool. A NULL into a *string, *int64 or
// *bool is an error, as it is there; so is any other destination, and a floating-point value
// (SQLite's text for it is not Go's).
func (r rawRow) Scan(dest ...any) error {
	for i, d := range dest {
		k := r.kind(i)
		switch d := d.(type) {
		case *sql.NullString:
			if k == sqlite3.SQLITE_NULL {
				*d = sql.NullString{}
			} else {
				*d = sql.NullString{String: r.text(i), Valid: true}
			}
			continue
		case *[]byte:
			// database/sql gives a text its bytes, an empty one too, and NULL or an empty blob nil.
			*d = r.bytes(i)
			if *d == nil && k == sqlite3.SQLITE_TEXT {
				*d = []byte{}
			}
			continue
		}
		if k == sqlite3.SQLITE_NULL || k == sqlite3.SQLITE_FLOAT {
			return fmt.Errorf("store: column %d (SQLite type %d) scanned into %T", i, k, d)
		}
		var err error
		switch d := d.(type) {
		case *string:
			*d = r.text(i)
		case *int64:
			*d, err = r.integer(i, k)
		case *bool:
			var v int64
			if k == sqlite3.SQLITE_INTEGER {
				v = r.int64(i)
			} else if b, perr := strconv.ParseBool(r.text(i)); perr == nil && b {
				v = 1
			} else if perr == nil {
				v = 0
			} else {
				v = -1
			}
			if v < 0 || v > 1 {
				err = fmt.Errorf("store: column %d is not a boolean", i)
			}
			*d = v == 1
		default:
			err = fmt.Errorf("store: column %d scanned into %T", i, d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// integer is column i of SQLite type k as an integer: a text that is one, as database/sql
// converts it.
func (r rawRow) integer(i int, k int32) (int64, error) {
	if k == sqlite3.SQLITE_INTEGER {
		return r.int64(i), nil
	}
	v, err := strconv.ParseInt(r.text(i), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("store: column %d is not an integer", i)
	}
	return v, nil
}

// one reads the one row of query into scan, or answers sql.ErrNoRows.
func (p *rawReads) one(ctx context.Context, query string, args []string, scan func(r rawRow) error) error {
	found := false
	err := p.query(ctx, query, args, func(r rawRow) (bool, error) {
		found = true
		return false, scan(r)
	})
	if err == nil && !found {
		err = sql.ErrNoRows
	}
	return err
}
