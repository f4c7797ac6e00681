package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/sqlq"
)

// Record adds event ev to the transaction's outbox (migration 00017). Nothing is written until
// the transaction commits: InTx flushes the outbox as its last statement, so a rolled-back
// write records nothing. A later change of an entity that already has an event of the same
// type in this transaction is merged into it (one event per resource a batch changed), and
// one that a creation absorbs (quire.Absorbs) is dropped.
func (tx *Tx) Record(ev quire.Event) {
	for _, i := range tx.eventsOf[ev.EntityID] {
		prev := &tx.events[i]
		if quire.Absorbs(prev.Type, ev.Type) {
			if prev.Type == ev.Type {
				prev.Data.Merge(ev.Data)
			}
			return
		}
	}
	if tx.eventsOf == nil {
		tx.eventsOf = map[string][]int{}
	}
	tx.eventsOf[ev.EntityID] = append(tx.eventsOf[ev.EntityID], len(tx.events))
	tx.events = append(tx.events, ev)
}

// eventCols are the columns of events, in the order flushEvents writes and scanEvent reads.
const eventCols = `seq, id, type, workspace_id, entity_type, entity_id, parent_type, parent_id, reach_id, user_id, bot_id, data, created_ms`

// flushEvents writes the outbox.
//
// SQLite (one writer): positions come from the workspace's event_heads row at the write.
//
// PostgreSQL: the events go in under provisional positions (negative, from the sequence
// events_provisional, migration 00037) and take no lock shared by the workspace's writers, so
// the writers' COMMITs overlap and PostgreSQL flushes them together. A reader of the feed
// numbers them once committed (stampEvents). The statement also makes sure the workspace's
// head row exists, without locking it. With commit, the last statement is sent with COMMIT in
// one round trip (commitWithEvents), and flushEvents reports that it committed.
func (tx *Tx) flushEvents(ctx context.Context, commit bool) (committed bool, err error) {
	if len(tx.events) == 0 {
		return false, nil
	}
	now := quire.NowMillis()
	byWS := map[string][]*quire.Event{}
	for i := range tx.events {
		ev := &tx.events[i]
		ev.CreatedMs = now
		byWS[ev.WorkspaceID] = append(byWS[ev.WorkspaceID], ev)
	}
	// Workspaces in a fixed order, so that two transactions never take their heads (or, on
	// PostgreSQL, create a new workspace's head) in turn.
	wss := make([]string, 0, len(byWS))
	for ws := range byWS {
		wss = append(wss, ws)
	}
	slices.Sort(wss)
	if tx.engine != Postgres {
		for _, ws := range wss {
			if err := tx.flushWorkspace(ctx, ws, byWS[ws]); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	var chunks [][]*quire.Event // one workspace's events each, eventsPerStatement at most
	for _, ws := range wss {
		for evs := byWS[ws]; len(evs) > 0; {
			chunk := evs[:min(eventsPerStatement, len(evs))]
			evs = evs[len(chunk):]
			chunks = append(chunks, chunk)
		}
	}
	last := chunks[len(chunks)-1]
	if commit && tx.conn != nil {
		chunks = chunks[:len(chunks)-1]
	} else {
		commit = false
	}
	for _, chunk := range chunks {
		q, args, err := tx.provisionalEvents(chunk)
		if err != nil {
			return false, err
		}
		if _, err := tx.tx.ExecContext(ctx, q, args...); err != nil {
			return false, err
		}
	}
	if !commit {
		return false, nil
	}
	return true, tx.commitWithEvents(ctx, last)
}

// headSQL advances a workspace's head by $2 positions and returns the new last one (SQLite).
const headSQL = `INSERT INTO event_heads (workspace_id, seq, swept_seq) VALUES ($1, $2, 0)
	ON CONFLICT (workspace_id) DO UPDATE SET seq = event_heads.seq + $2
	RETURNING seq`

// provisionalEvents is PostgreSQL's statement for evs, events of one workspace
// (eventsPerStatement at most), and its parameters: $1 the workspace, $2 their time, the VALUES
// rows from $3 (eventValues with the ordinal). One value of events_provisional for the
// statement, drawn last in the write, when the write holds every row lock it takes: event n of
// the statement is at -(value + n). The head row is created if missing (ON CONFLICT DO NOTHING
// locks no existing row); a data-modifying WITH runs to completion whether or not the main
// query reads it.
func (tx *Tx) provisionalEvents(evs []*quire.Event) (string, []any, error) {
	q, args, err := tx.eventValues(evs, 3, true)
	if err != nil {
		return "", nil, err
	}
	return `WITH k AS (SELECT nextval('events_provisional') AS k),
			h AS (INSERT INTO event_heads (workspace_id, seq, swept_seq) VALUES ($1, 0, 0)
				ON CONFLICT (workspace_id) DO NOTHING)
			INSERT INTO events (` + eventCols + `)
			SELECT -(k.k + v.n), v.id, v.type, $1, v.entity_type, v.entity_id, v.parent_type,
				v.parent_id, v.reach_id, v.user_id, v.bot_id, v.data, $2::bigint
			FROM k, (VALUES ` + q + `) AS v (n, id, type, entity_type, entity_id, parent_type, parent_id,
				reach_id, user_id, bot_id, data)`, append([]any{evs[0].WorkspaceID, evs[0].CreatedMs}, args...), nil
}

// flushWorkspace gives evs, events of workspace ws, their positions from its head and writes
// them (SQLite, where the single writer makes positions follow commit order).
func (tx *Tx) flushWorkspace(ctx context.Context, ws string, evs []*quire.Event) error {
	var last int64
	if err := tx.tx.QueryRowContext(ctx, headSQL, ws, int64(len(evs))).Scan(&last); err != nil {
		return err
	}
	setSeqs(evs, last)
	return tx.insertEvents(ctx, evs)
}

// setSeqs numbers evs up to last, the head's position after them.
func setSeqs(evs []*quire.Event, last int64) {
	n := int64(len(evs))
	for i, ev := range evs {
		ev.Seq = last - n + int64(i) + 1
	}
}

// eventsPerStatement bounds a multi-row insert of events (13 parameters a row, 1,300 in all):
// a mutation batch of 100 creates records its 100 events in one statement.
const eventsPerStatement = 100

// eventValues renders evs as VALUES rows with parameters numbered from first: all 13 columns
// in eventCols order, or, with ordinal, the position within evs (a literal, 1 up) and the 10
// columns that differ between a workspace's events. The text depends only on the number of
// events, so it is made once per number (valuesText).
func (tx *Tx) eventValues(evs []*quire.Event, first int, ordinal bool) (string, []any, error) {
	cols := 13
	if ordinal {
		cols = 10
	}
	args := make([]any, 0, cols*len(evs))
	for _, ev := range evs {
		data, err := json.Marshal(ev.Data)
		if err != nil {
			return "", nil, err
		}
		if ordinal {
			args = append(args, ev.ID, ev.Type)
		} else {
			args = append(args, ev.Seq, ev.ID, ev.Type, ev.WorkspaceID)
		}
		args = append(args, ev.EntityType, ev.EntityID, ev.ParentType, ev.ParentID, ev.ReachID, ev.UserID, ev.BotID, string(data))
		if !ordinal {
			args = append(args, ev.CreatedMs)
		}
	}
	return tx.valuesText(valuesKey{engine: tx.engine, rows: len(evs), cols: cols, first: first, ordinal: ordinal}), args, nil
}

// valuesKey names one shape of eventValues' text.
type valuesKey struct {
	engine            Engine
	rows, cols, first int
	ordinal           bool
}

// valuesTexts caches eventValues' texts: up to eventsPerStatement rows in two shapes per
// engine, under a megabyte in all. A mutation batch of 100 records would otherwise format
// 1,000 placeholders on every write.
var valuesTexts sync.Map // valuesKey → string

func (tx *Tx) valuesText(k valuesKey) string {
	if q, ok := valuesTexts.Load(k); ok {
		return q.(string)
	}
	var sb strings.Builder
	p := k.first
	for i := range k.rows {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteByte('(')
		if k.ordinal {
			sb.WriteString(strconv.Itoa(i+1) + ", ")
		}
		for c := range k.cols {
			if c > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(tx.placeholder(p))
			p++
		}
		sb.WriteByte(')')
	}
	q, _ := valuesTexts.LoadOrStore(k, sb.String())
	return q.(string)
}

// insertEvents writes events whose positions are set, eventsPerStatement rows a statement.
func (tx *Tx) insertEvents(ctx context.Context, evs []*quire.Event) error {
	for len(evs) > 0 {
		chunk := evs[:min(eventsPerStatement, len(evs))]
		evs = evs[len(chunk):]
		q, args, err := tx.eventValues(chunk, 1, false)
		if err != nil {
			return err
		}
		if _, err := tx.tx.ExecContext(ctx, `INSERT INTO events (`+eventCols+`) VALUES `+q, args...); err != nil {
			return err
		}
	}
	return nil
}

// EventFilter narrows a read of the feed.
type EventFilter struct {
	Types    []string // any of these; empty: every type
	EntityID string   // empty: every entity
}

// Events returns up to limit events of workspace ws after position after, oldest first,
// numbering the committed events that have no position yet first (stampEvents).
func (s *Store) Events(ctx context.Context, ws string, after int64, limit int, f EventFilter) ([]quire.Event, error) {
	if err := s.stampEvents(ctx, ws); err != nil {
		return nil, err
	}
	a := sqlq.NewArgs(ws, after)
	q := `SELECT ` + eventCols + ` FROM events WHERE workspace_id = $1 AND seq > $2`
	if len(f.Types) > 0 {
		q += ` AND type IN (` + sqlq.In(a, f.Types) + `)`
	}
	if f.EntityID != "" {
		q += ` AND entity_id = ` + a.Arg(f.EntityID)
	}
	q += ` ORDER BY seq LIMIT ` + a.Arg(limit)
	rows, err := s.read.QueryContext(ctx, q, a.List...)
	return scanAll(rows, err, scanEvent)
}

func scanEvent(row interface{ Scan(...any) error }) (quire.Event, error) {
	var ev quire.Event
	var data string
	err := row.Scan(&ev.Seq, &ev.ID, &ev.Type, &ev.WorkspaceID, &ev.EntityType, &ev.EntityID, &ev.ParentType,
		&ev.ParentID, &ev.ReachID, &ev.UserID, &ev.BotID, &data, &ev.CreatedMs)
	if err == nil {
		err = json.Unmarshal([]byte(data), &ev.Data)
	}
	return ev, err
}

// EventHead is how far workspace ws's feed goes: the position of its last event, and the
// position up to which the retention sweep has deleted events (0 for none), after numbering the
// committed events that have no position yet (stampEvents).
func (s *Store) EventHead(ctx context.Context, ws string) (last, swept int64, err error) {
	if err := s.stampEvents(ctx, ws); err != nil {
		return 0, 0, err
	}
	err = s.read.QueryRowContext(ctx, `SELECT seq, swept_seq FROM event_heads WHERE workspace_id = $1`, ws).Scan(&last, &swept)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil // no event yet
	}
	return last, swept, err
}

// SweepEvents deletes the events created before beforeMs and records, per workspace, the
// position up to which events are gone; it returns how many it deleted. Each workspace's feed
// is walked on its primary key from where the last sweep stopped, up to its first event not
// older than beforeMs: positions follow commit order and creation times nearly so (two
// writers waiting for the head, two servers' clocks, or on PostgreSQL a write numbered some
// time after it was made (stampEvents) may swap them by a little, which only keeps an event a
// little longer), so the feed never has a hole and a sweep reads only what it deletes, plus one
// event (migration 00020). Each workspace's committed events are numbered first. A workspace
// is swept in its own short transactions of at most sweepBatch events, as its head's lock stops
// its writers (SQLite) and stampers until each commits.
func (s *Store) SweepEvents(ctx context.Context, beforeMs int64) (int64, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT workspace_id FROM event_heads ORDER BY workspace_id`)
	wss, err := scanAll(rows, err, func(r interface{ Scan(...any) error }) (string, error) {
		var ws string
		return ws, r.Scan(&ws)
	})
	var total int64
	for _, ws := range wss {
		if err != nil {
			break
		}
		if err = s.stampEvents(ctx, ws); err != nil {
			break
		}
		for n := sweepBatch; err == nil && n == sweepBatch; {
			n, err = s.sweepWorkspace(ctx, ws, beforeMs)
			total += n
		}
	}
	return total, err
}

// sweepBatch bounds the events one sweep transaction deletes: the head's lock stops the
// workspace's writers (SQLite) and stampers until it commits, so a backlog (a first sweep after a month of heavy
// writes) is deleted in several short transactions instead of one long one.
var sweepBatch int64 = 10_000 // a variable for tests

// sweepWorkspace deletes workspace ws's events before its first one not older than beforeMs
// (all of them when there is none). The last position is read as this statement sees it, not
// from the head: a writer or stamper that holds the head has positions above every visible
// event, and its events, invisible here, must not be counted as swept.
func (s *Store) sweepWorkspace(ctx context.Context, ws string, beforeMs int64) (int64, error) {
	var n int64
	err := s.InTx(ctx, func(tx *Tx) error {
		var swept int64
		if err := tx.tx.QueryRowContext(ctx, `SELECT swept_seq FROM event_heads WHERE workspace_id = $1`, ws).Scan(&swept); err != nil {
			return err
		}
		var to sql.NullInt64
		err := tx.tx.QueryRowContext(ctx, `
			SELECT COALESCE(
				(SELECT seq - 1 FROM events WHERE workspace_id = $1 AND seq > $2 AND created_ms >= $3 ORDER BY seq LIMIT 1),
				(SELECT max(seq) FROM events WHERE workspace_id = $1 AND seq > $2))`, ws, swept, beforeMs).Scan(&to)
		if err != nil || !to.Valid || to.Int64 <= swept {
			return err
		}
		to.Int64 = min(to.Int64, swept+sweepBatch) // positions are consecutive: at most sweepBatch events
		res, err := tx.tx.ExecContext(ctx, `UPDATE event_heads SET swept_seq = $2 WHERE workspace_id = $1 AND swept_seq < $2`, ws, to.Int64)
		if err != nil {
			return err
		}
		if moved, err := res.RowsAffected(); err != nil || moved == 0 {
			return err
		}
		res, err = tx.tx.ExecContext(ctx, `DELETE FROM events WHERE workspace_id = $1 AND seq <= $2`, ws, to.Int64)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// ReachedAmong returns those of nodes ids of workspace ws that token tokenID (not
// workspace-scoped) reaches: each node whose own id or an ancestor's is granted to it. One
// recursive query walks up from every id at once.
func (s *Store) ReachedAmong(ctx context.Context, ws, tokenID string, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	a := sqlq.NewArgs(ws, tokenID, maxDepth)
	rows, err := s.read.QueryContext(ctx, `
		WITH RECURSIVE up (origin, id, parent_id, depth) AS (
			SELECT id, id, parent_id, 0 FROM nodes WHERE workspace_id = $1 AND id IN (`+sqlq.In(a, ids)+`)
			UNION ALL
			SELECT up.origin, n.id, n.parent_id, up.depth + 1 FROM nodes n JOIN up ON n.id = up.parent_id
			WHERE up.depth < $3
		)
		SELECT DISTINCT up.origin FROM up JOIN grants g ON g.target_id = up.id AND g.token_id = $2`, a.List...)
	found, err := scanAll(rows, err, func(r interface{ Scan(...any) error }) (string, error) {
		var id string
		return id, r.Scan(&id)
	})
	for _, id := range found {
		out[id] = true
	}
	return out, err
}

// bell wakes the readers of the feed in this process (GET /v2/events/stream) when a
// transaction that recorded events commits, so they need not wait for their next poll. Writes
// made by other servers are found by the poll.
type bell struct {
	mu sync.Mutex
	ch chan struct{}
}

func (b *bell) ring() {
	b.mu.Lock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
	b.mu.Unlock()
}

func (b *bell) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

// EventsCommitted returns a channel closed when a transaction of this process next commits
// events.
func (s *Store) EventsCommitted() <-chan struct{} { return s.events.wait() }
