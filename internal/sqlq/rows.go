package sqlq

// Scanner is a statement's current row: database/sql's *sql.Rows, or the store's own row read
// from pgx's buffer on PostgreSQL. search and dbquery both hand their rows to the store's one
// reader of that kind (store's pgRowsDB) through it.
type Scanner interface{ Scan(dest ...any) error }
