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
// *bool is an error, as it is there; so is any other destination.
func (r rawRow) Scan(dest ...any) error {
	for i, d := range dest {
		k := r.kind(i)
		if k == sqlite3.SQLITE_NULL {
			switch d := d.(type) {
			case *sql.NullString:
				*d = sql.NullString{}
				continue
			case *[]byte:
				*d = nil
				continue
			}
			return fmt.Errorf("store: column %d is NULL, scanned into %T", i, d)
		}
		switch d := d.(type) {
		case *string:
			if k == sqlite3.SQLITE_INTEGER {
				*d = strconv.FormatInt(r.int64(i), 10)
			} else {
				*d = r.text(i)
			}
		case *sql.NullString:
			*d = sql.NullString{String: r.text(i), Valid: true}
		case *[]byte:
			// database/sql gives a text its bytes, an empty one too, and an empty blob nil.
			*d = r.bytes(i)
			if *d == nil && k == sqlite3.SQLITE_TEXT {
				*d = []byte{}
			}
		case *int64:
			if k != sqlite3.SQLITE_INTEGER {
				return fmt.Errorf("store: column %d is not an integer", i)
			}
			*d = r.int64(i)
		case *bool:
			switch v := r.int64(i); {
			case k != sqlite3.SQLITE_INTEGER || v < 0 || v > 1:
				return fmt.Errorf("store: column %d is not a boolean", i)
			default:
				*d = v == 1
			}
		default:
			return fmt.Errorf("store: column %d scanned into %T", i, d)
		}
	}
	return nil
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
