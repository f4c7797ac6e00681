package store

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/quire-dev/quire/internal/dbquery"
)

// Pairs: composite indexes of a database's filter and sort properties (record_pairs, migration
// 00019; dbquery's pairs.go). A pair is registered once this server has run pairAfterUses
// queries that it would answer, in the background, so that no request waits for its rows to
// be written; until then, and on every other server until it commits, queries take the walk
// they took before. Which pairs exist is read in each query's own transaction, never kept in
// memory, so a pair is used by every server from the moment its rows are there.

const (
	// pairAfterUses is how many queries of one pair a server sees before it registers the pair:
	// a one-off query does not cost the database an index.
	pairAfterUses = 3
	// maxPairs bounds the pairs of one database: each costs about 17 MB on disk per 100,000
	// records with one value of the filter property each (measured on SQLite: its table and
	// two indexes), and a little on every write of either property.
	maxPairs = 4
	// maxWanted bounds the pairs a server counts queries of (a few hundred kilobytes).
	maxWanted = 10000
)

// pairName names a pair that a query wanted: a database, its filter and sort properties.
type pairName struct {
	db, filter, sort string
	byText           bool
}

// pairs counts the queries that wanted a pair not yet registered, and runs the registrations.
type pairs struct {
	mu      sync.Mutex
	seen    map[pairName]int
	running bool
	wg      sync.WaitGroup
}

// wait returns once no registration is running (the store is closing).
func (p *pairs) wait() { p.wg.Wait() }

// wantPair counts a query that pair w would have answered, and once this server has seen
// pairAfterUses of them, registers the pair in the background (one registration at a time).
func (s *Store) wantPair(q dbquery.Query) {
	w, ok := dbquery.PairWanted(q)
	if !ok {
		return
	}
	name := pairName{db: q.DatabaseID, filter: w.Conds[0].PropertyID, sort: w.SortProperty, byText: w.ByText}
	p := &s.pairs
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil || len(p.seen) >= maxWanted {
		p.seen = map[pairName]int{} // counts lost only delay a registration
	}
	p.seen[name]++
	if p.seen[name] < pairAfterUses || p.running {
		return
	}
	delete(p.seen, name)
	p.running = true
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := s.RegisterPair(ctx, name.db, name.filter, name.sort, name.byText); err != nil {
			slog.Warn("registering a record pair failed", "database", name.db, "err", err)
		}
		p.mu.Lock()
		p.running = false
		p.mu.Unlock()
	}()
}

// RegisterPair makes the composite index of database db for an equality on filterProp and a
// sort by sortProp (its text column when byText, else its number): the key and every record's
// rows in one transaction, so a query sees the pair with all its rows or not at all. It does
// nothing when the pair exists or the database has maxPairs already.
func (s *Store) RegisterPair(ctx context.Context, db, filterProp, sortProp string, byText bool) error {
	// A database with its pairs already is told by one indexed read, before the transaction:
	// its queries keep wanting pairs, and on PostgreSQL each registration would otherwise hold
	// every writer of record_values back (the lock below) only to learn it has nothing to do.
	var n int
	if err := s.read.QueryRowContext(ctx, countPairs, db).Scan(&n); err != nil || n >= maxPairs {
		return err
	}
	return s.InTx(ctx, func(tx *Tx) error {
		if tx.engine == Postgres {
			// Writers of record_values wait until the key commits, and the rows they committed
			// before are all in the backfill's snapshot: a record written meanwhile can neither
			// miss the key's triggers nor the backfill. SQLite has one writer already.
			if _, err := tx.tx.ExecContext(ctx, `LOCK TABLE record_values IN SHARE MODE`); err != nil {
				return err
			}
		}
		if err := tx.tx.QueryRowContext(ctx, countPairs, db).Scan(&n); err != nil {
			return err
		}
		if n >= maxPairs {
			return nil
		}
		// The backfill reads both properties' rows: a property whose rows the database does
		// not keep (records_indexed.go) would leave the pair without them. Queries register
		// their properties before they count toward a pair, so this is a registration that
		// raced a property's removal, or a caller that skipped the query. A property still
		// building has not every record's rows yet: it does not count.
		if err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM record_indexed WHERE database_id = $1 AND lease_ms = 0 AND property_id IN ($2, $3)`,
			db, filterProp, sortProp).Scan(&n); err != nil || n < 2 {
			return err
		}
		rows, err := tx.tx.QueryContext(ctx, `INSERT INTO record_pair_keys (database_id, filter_prop, sort_prop, by_text, created_ms)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING id`, db, filterProp, sortProp, byText, time.Now().UnixMilli())
		if err != nil {
			return err
		}
		var id int64
		inserted := rows.Next()
		if inserted {
			err = rows.Scan(&id)
		}
		rows.Close()
		if err != nil || !inserted {
			return err
		}
		fill := backfillNum
		if byText {
			fill = backfillText
		}
		_, err = tx.tx.ExecContext(ctx, fill, id, db, filterProp, sortProp)
		return err
	})
}

// countPairs counts the pairs of database $1.
const countPairs = `SELECT count(*) FROM record_pair_keys WHERE database_id = $1`

// The rows of a new pair $1 of database $2, filter property $3 and sort property $4, as the
// triggers of migration 00019 write them.
const (
	backfillNum = `INSERT INTO record_pairs (pair_id, record_id, f_value, s_num, s_text)
		SELECT CAST($1 AS BIGINT), f.record_id, f.v_text, s.v_num, NULL FROM record_values f
		JOIN record_values s ON s.record_id = f.record_id AND s.database_id = f.database_id AND s.property_id = $4 AND s.ord = 0
		WHERE f.database_id = $2 AND f.property_id = $3 AND f.v_text IS NOT NULL AND s.v_num IS NOT NULL
		ON CONFLICT DO NOTHING`
	backfillText = `INSERT INTO record_pairs (pair_id, record_id, f_value, s_num, s_text)
		SELECT CAST($1 AS BIGINT), f.record_id, f.v_text, NULL, s.v_text FROM record_values f
		JOIN record_values s ON s.record_id = f.record_id AND s.database_id = f.database_id AND s.property_id = $4 AND s.ord = 0
		WHERE f.database_id = $2 AND f.property_id = $3 AND f.v_text IS NOT NULL AND s.v_text IS NOT NULL
		ON CONFLICT DO NOTHING`
)

// dropPairsOf deletes the pairs of database db that name property prop, their rows first: the
// property is being dropped, and its rows then go without the triggers' work per row. A pair
// that a later query wants again is registered again.
func (tx *Tx) dropPairsOf(ctx context.Context, db, prop string) error {
	if _, err := tx.tx.ExecContext(ctx, `DELETE FROM record_pairs WHERE pair_id IN
		(SELECT id FROM record_pair_keys WHERE database_id = $1 AND (filter_prop = $2 OR sort_prop = $2))`, db, prop); err != nil {
		return err
	}
	_, err := tx.tx.ExecContext(ctx, `DELETE FROM record_pair_keys WHERE database_id = $1 AND (filter_prop = $2 OR sort_prop = $2)`, db, prop)
	return err
}
