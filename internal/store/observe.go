package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
)

// openObserved opens a pool over the driver registered as driverName whose connections report
// every statement they run to observe (Config.Observe), before running it. Preparing is not
// running: a prepared statement is reported each time it is run. Transaction control (BEGIN,
// COMMIT) is not reported.
func openObserved(driverName, dsn string, observe func(query string)) (*sql.DB, error) {
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, err
	}
	drv := db.Driver()
	db.Close()
	var base driver.Connector = dsnConnector{dsn: dsn, drv: drv}
	if dc, ok := drv.(driver.DriverContext); ok {
		if base, err = dc.OpenConnector(dsn); err != nil {
			return nil, err
		}
	}
	return observedDB(base, observe), nil
}

// observedDB is sql.OpenDB over base with every connection observed.
func observedDB(base driver.Connector, observe func(query string)) *sql.DB {
	return sql.OpenDB(observedConnector{base: base, observe: observe})
}

type dsnConnector struct {
	dsn string
	drv driver.Driver
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.drv }

type observedConnector struct {
	base    driver.Connector
	observe func(string)
}

func (c observedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &observedConn{Conn: conn, observe: c.observe}, nil
}

func (c observedConnector) Driver() driver.Driver { return c.base.Driver() }

// observedConn passes every call to the driver's connection, reporting the statements it runs.
// Each optional interface falls back as database/sql would when the driver lacks it.
type observedConn struct {
	driver.Conn
	observe func(string)
}

func (c *observedConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *observedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var st driver.Stmt
	var err error
	if pc, ok := c.Conn.(driver.ConnPrepareContext); ok {
		st, err = pc.PrepareContext(ctx, query)
	} else {
		st, err = c.Conn.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &observedStmt{Stmt: st, query: query, observe: c.observe}, nil
}

func (c *observedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.observe(query)
	return q.QueryContext(ctx, query, args)
}

func (c *observedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.observe(query)
	return e.ExecContext(ctx, query, args)
}

func (c *observedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.Conn.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, opts)
	}
	return c.Conn.Begin() //nolint:staticcheck // the driver offers nothing newer
}

func (c *observedConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *observedConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *observedConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *observedConn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.Conn.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

type observedStmt struct {
	driver.Stmt
	query   string
	observe func(string)
}

func (s *observedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.observe(s.query)
	if e, ok := s.Stmt.(driver.StmtExecContext); ok {
		return e.ExecContext(ctx, args)
	}
	return s.Stmt.Exec(values(args)) //nolint:staticcheck // the driver offers nothing newer
}

func (s *observedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.observe(s.query)
	if q, ok := s.Stmt.(driver.StmtQueryContext); ok {
		return q.QueryContext(ctx, args)
	}
	return s.Stmt.Query(values(args)) //nolint:staticcheck // the driver offers nothing newer
}

func (s *observedStmt) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := s.Stmt.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

func values(args []driver.NamedValue) []driver.Value {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}
