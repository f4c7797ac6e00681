package store

import "context"

// PGRawScanForTest reads the one row of query through PostgreSQL's pgRaw (pg_raw.go) into dest;
// false when the store has none (SQLite).
func (s *Store) PGRawScanForTest(ctx context.Context, query string, args []string, dest ...any) (bool, error) {
	if s.pg == nil {
		return false, nil
	}
	return true, s.pg.one(ctx, query, args, func(r *pgRow) error { return r.Scan(dest...) })
}

// PGRawRowsForTest runs query with args through the raw reads (pgRaw.query) and returns the
// first column of every row it was given, as text.
func (s *Store) PGRawRowsForTest(ctx context.Context, query string, args []string) ([]string, error) {
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a
	}
	var got []string
	err := s.pg.query(ctx, query, vals, func(r *pgRow) (bool, error) {
		var v string
		err := r.Scan(&v)
		got = append(got, v)
		return true, err
	})
	return got, err
}

// JoinedWaitingForTest is how many of fields' joined reads wait for the next round trip
// (tokens_node_many.go); 0 on SQLite.
func (s *Store) JoinedWaitingForTest(fields NodeFields) int {
	if s.pg == nil {
		return 0
	}
	return s.pg.queueFor(mustJoinedRead(fields, s.engine)).waitingLen()
}

// JoinedManyQueryForTest is fields' joined read of several tokens and nodes in one statement
// on PostgreSQL.
func JoinedManyQueryForTest(fields NodeFields) string { return mustJoinedRead(fields, Postgres).many }

// JoinedReadQueryForTest is fields' joined read of one token and node on PostgreSQL.
func JoinedReadQueryForTest(fields NodeFields) string { return mustJoinedRead(fields, Postgres).query }

// ChildrenWaitingForTest is how many reads of fields with the first limit children of id
// wait for the next round trip of that listing (tokens_node_children_many.go); 0 on SQLite.
func (s *Store) ChildrenWaitingForTest(fields NodeFields, id string, limit int) int {
	if s.pg == nil {
		return 0
	}
	v, ok := s.pg.kids.Load(childrenKey{mustJoinedRead(fields, s.engine), id, limit})
	if !ok {
		return 0
	}
	return v.(*childrenQueue).waitingLen()
}

// ChildrenLanesForTest is how many listings have a lane (tokens_node_children_many.go).
func (s *Store) ChildrenLanesForTest() int {
	n := 0
	if s.pg != nil {
		s.pg.kids.Range(func(any, any) bool { n++; return true })
	}
	return n
}

// waitingLen is how many reads wait on l.
func (l *lane[C]) waitingLen() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.wait)
}
