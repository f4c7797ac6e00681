package store

import (
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// isUniqueViolation reports whether err is a unique or primary-key constraint failure, by the
// engine's error code (never by message text).
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505"
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		c := sqErr.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// placeholder is parameter n in a statement built at run time, whose parameters appear in
// order. SQLite keeps the names of "$n" and "?n" parameters in a list searched linearly, both
// when parsing and when the driver binds, which makes a statement with a thousand of them
// quadratic; a plain "?" has no name. PostgreSQL takes "$n" only. Hand-written statements keep
// "$n", which both engines accept.
func (tx *Tx) placeholder(n int) string {
	if tx.engine == SQLite {
		return "?"
	}
	return "$" + strconv.Itoa(n)
}
