package store

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// pgRow is the current row of a pgRaw query: each column's bytes as PostgreSQL sent them, in
// the text or binary format pgx asked for (pgx asks binary for bigint and boolean, text for
// text), read straight into the caller's fields. The store's hot reads return text, bigint and
// boolean columns only; any other type is an error (err, or Scan's), not a guess.
type pgRow struct {
	fds  []pgconn.FieldDescription
	vals [][]byte // nil: NULL
	err  error    // the first column read as a type it is not
}

func (r *pgRow) null(i int) bool { return r.vals[i] == nil }

// fail notes the first column read as what it is not.
func (r *pgRow) fail(i int, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("store: column %d (type %d, format %d, %d bytes) is not %s", i,
			r.fds[i].DataTypeOID, r.fds[i].Format, len(r.vals[i]), want)
	}
}

// mem is text column i's bytes in pgx's read buffer, valid until the row moves on. A text's
// binary format is its UTF-8 bytes, as its text format is.
func (r *pgRow) mem(i int) []byte {
	switch r.fds[i].DataTypeOID {
	case pgtype.TextOID, pgtype.VarcharOID:
		return r.vals[i]
	}
	r.fail(i, "text")
	return nil
}

// text is column i as a Go string of its own.
func (r *pgRow) text(i int) string { return string(r.mem(i)) }

// int64 is integer column i.
func (r *pgRow) int64(i int) int64 {
	v, fd := r.vals[i], r.fds[i]
	if fd.Format == pgtype.TextFormatCode {
		switch fd.DataTypeOID {
		case pgtype.Int8OID, pgtype.Int4OID, pgtype.Int2OID:
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				return n
			}
		}
	} else {
		switch {
		case fd.DataTypeOID == pgtype.Int8OID && len(v) == 8:
			return int64(binary.BigEndian.Uint64(v))
		case fd.DataTypeOID == pgtype.Int4OID && len(v) == 4:
			return int64(int32(binary.BigEndian.Uint32(v)))
		case fd.DataTypeOID == pgtype.Int2OID && len(v) == 2:
			return int64(int16(binary.BigEndian.Uint16(v)))
		}
	}
	r.fail(i, "an integer")
	return 0
}

// float64 is number column i: a double precision (binary, as resultShape asks for it) or an
// integer, as database/sql converts either into a float.
func (r *pgRow) float64(i int) float64 {
	v, fd := r.vals[i], r.fds[i]
	switch fd.DataTypeOID {
	case pgtype.Float8OID:
		if fd.Format == pgtype.BinaryFormatCode && len(v) == 8 {
			return math.Float64frombits(binary.BigEndian.Uint64(v))
		}
		if fd.Format == pgtype.TextFormatCode {
			if f, err := strconv.ParseFloat(string(v), 64); err == nil {
				return f
			}
		}
	case pgtype.Int8OID, pgtype.Int4OID, pgtype.Int2OID:
		return float64(r.int64(i))
	}
	r.fail(i, "a number")
	return 0
}

// value is column i as pgx's driver gives it to an `any`: a text as a string of its own, an
// integer as an int64, a boolean as a bool, NULL as nil.
func (r *pgRow) value(i int) any {
	if r.null(i) {
		return nil
	}
	switch r.fds[i].DataTypeOID {
	case pgtype.TextOID, pgtype.VarcharOID:
		return r.text(i)
	case pgtype.Int8OID, pgtype.Int4OID, pgtype.Int2OID:
		return r.int64(i)
	case pgtype.BoolOID:
		return r.boolean(i)
	}
	r.fail(i, "a text, an integer or a boolean")
	return nil
}

// boolean is boolean column i.
func (r *pgRow) boolean(i int) bool {
	v, fd := r.vals[i], r.fds[i]
	if fd.DataTypeOID == pgtype.BoolOID && len(v) == 1 {
		if fd.Format == pgtype.TextFormatCode {
			return v[0] == 't'
		}
		return v[0] == 1
	}
	r.fail(i, "a boolean")
	return false
}

// failed is the first column read as what it is not, if any.
func (r *pgRow) failed() error { return r.err }

// Scan reads the row into dest as database/sql's Scan does over pgx's driver, for the column
// types the store's raw reads return (text, bigint, boolean, double precision) and the
// destinations they use: *string, *sql.NullString, *[]byte, *int64, *bool; and for a database
// query's walk (pgRowsDB) *sql.NullFloat64 of a double precision or an integer, and *any of a
// text, an integer or a boolean, as pgx's driver gives them. A NULL into a *string, *int64 or
// *bool is an error, as it is there; so is any other destination or column type.
func (r *pgRow) Scan(dest ...any) error {
	if len(dest) != len(r.vals) {
		return fmt.Errorf("store: %d destinations for %d columns", len(dest), len(r.vals))
	}
	r.err = nil
	for i, d := range dest {
		switch d := d.(type) {
		case *sql.NullString:
			*d = sql.NullString{}
			if !r.null(i) {
				*d = sql.NullString{String: r.text(i), Valid: true}
			}
			continue
		case *sql.NullFloat64:
			*d = sql.NullFloat64{}
			if !r.null(i) {
				*d = sql.NullFloat64{Float64: r.float64(i), Valid: true}
			}
			continue
		case *any:
			*d = r.value(i)
			continue
		case *[]byte:
			// database/sql gives a text its own bytes, an empty one too, and NULL nil.
			*d = nil
			if !r.null(i) {
				*d = append([]byte{}, r.mem(i)...)
			}
			continue
		}
		if r.null(i) {
			return fmt.Errorf("store: column %d is NULL, scanned into %T", i, d)
		}
		switch d := d.(type) {
		case *string:
			*d = r.text(i)
		case *int64:
			*d = r.int64(i)
		case *bool:
			*d = r.boolean(i)
		default:
			return fmt.Errorf("store: column %d scanned into %T", i, d)
		}
	}
	return r.err
}
