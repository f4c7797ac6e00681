package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// On PostgreSQL, quire-bench records what the database was doing around each measured run
// (docs/performance.md, "PostgreSQL search and seeding, sixteenth pass"): a round's p50 also
// pays for whatever ran beside it on the same cores (an autovacuum of the tables the last writes
// touched, a checkpoint), which the figures alone do not show. The snapshots are read before and
// after a run, off its clock; while it runs, one connection samples pg_stat_activity every
// watchEvery (a few small reads a second). PostgreSQL's backends report their row and commit
// counts at most once a second while busy, so a run's counts may include up to a second's
// worth from before it and leave out its last; the upkeep seen and the CPU are exact.

// watchEvery is how often pg_stat_activity is sampled while a watched run goes on.
const watchEvery = 200 * time.Millisecond

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's times (100 on Linux).
const clockTicks = 100

// pgWatch reads one PostgreSQL database's activity around quire's runs.
type pgWatch struct {
	db     *sql.DB
	self   int  // the watch connection's backend pid, left out of what it samples
	master int  // the postmaster's pid, 0 when its processes cannot be read (another host)
	quire  int  // quire serve's pid
	gin    bool // pgstatginindex can be read (pgstattuple installed)
	stderr io.Writer
}

// dbRound is what the database did during one watched run, beside the run's figures.
type dbRound struct {
	Label   string  `json:"label"`
	Load    string  `json:"load_average"`
	Seconds float64 `json:"seconds"`
	// Requests answered in the run (0 for a seeding, whose writes are counted in its phase).
	Requests int64 `json:"requests"`
	// CPU in milliseconds over the run: quire serve, the cluster's live client backends (quire's
	// pool, the watch's own connection left out), and every process of the cluster, the
	// autovacuum workers, checkpointer and exited backends included. -1 where /proc cannot tell.
	QuireCPU   float64 `json:"quire_cpu_ms"`
	ClientCPU  float64 `json:"backends_cpu_ms"`
	ClusterCPU float64 `json:"cluster_cpu_ms"`
	WALBytes   int64   `json:"wal_bytes"`
	Commits    int64   `json:"commits"`
	// Checkpoints started during the run (timed and requested), and buffers they wrote.
	Checkpoints       int64 `json:"checkpoints"`
	CheckpointBuffers int64 `json:"checkpoint_buffers"`
	// Tables whose rows or upkeep changed during the run.
	Tables []tableDelta `json:"tables,omitempty"`
	// GIN pending-list pages of the trigram indexes before and after (absent without pgstattuple).
	GINBefore map[string]int64 `json:"gin_pending_before,omitempty"`
	GINAfter  map[string]int64 `json:"gin_pending_after,omitempty"`
	// Samples is how many times pg_stat_activity was read during the run; Upkeep counts the
	// samples that saw each autovacuum (or other maintenance) query; Waits counts, over all
	// samples, each active client backend's wait ("CPU" when it waited on nothing).
	Samples int            `json:"samples"`
	Upkeep  map[string]int `json:"upkeep,omitempty"`
	Waits   map[string]int `json:"waits,omitempty"`
}

// tableDelta is one table's pg_stat_user_tables change over a run.
type tableDelta struct {
	Table        string `json:"table"`
	Inserted     int64  `json:"inserted"`
	Updated      int64  `json:"updated"`
	Deleted      int64  `json:"deleted"`
	DeadAfter    int64  `json:"dead_after"`
	ModAfter     int64  `json:"modified_since_analyze_after"`
	Autovacuums  int64  `json:"autovacuums"`
	Autoanalyzes int64  `json:"autoanalyzes"`
	Vacuums      int64  `json:"vacuums"`
	Analyzes     int64  `json:"analyzes"`
}

// tableStat is one row of pg_stat_user_tables.
type tableStat struct {
	ins, upd, del, dead, mod, autovac, autoan, vac, an int64
}

// dbState is one snapshot.
type dbState struct {
	at                  time.Time
	load                string
	tables              map[string]tableStat
	gin                 map[string]int64
	quire, all          float64
	clients             map[int]float64 // live client backends' CPU by pid, -1 when unread
	wal, commits        int64
	checkpoints, cpBufs int64
}

// newPGWatch connects to url for quire serve's process pid; it installs pgstattuple where it
// may (to read the GIN pending lists) and goes on without it where it may not.
func newPGWatch(ctx context.Context, url string, pid int, stderr io.Writer) (*pgWatch, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	w := &pgWatch{db: db, quire: pid, stderr: stderr}
	if err := db.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&w.self); err != nil {
		db.Close()
		return nil, err
	}
	if st, err := procStat(w.self); err == nil {
		w.master = st.ppid
	}
	if _, err := db.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pgstattuple`); err == nil {
		w.gin = true
	} else {
		fmt.Fprintf(stderr, "  (no pgstattuple, GIN pending lists not watched: %v)\n", err)
	}
	return w, nil
}

// close closes the watch's connection.
func (w *pgWatch) close() { w.db.Close() }

// watched runs fn, the run labelled label, between two snapshots with pg_stat_activity sampled
// while it runs, and returns the round (printRound writes it); requests is what fn reports
// answered. A failed snapshot is reported on stderr and gives no round: the run still counts.
func (w *pgWatch) watched(ctx context.Context, label string, fn func() (int64, error)) (*dbRound, error) {
	before, err := w.snapshot(ctx)
	if err != nil {
		fmt.Fprintf(w.stderr, "  pg watch: %v\n", err)
		_, err := fn()
		return nil, err
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	upkeep, waits, samples := map[string]int{}, map[string]int{}, 0
	wg.Go(func() {
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if w.sample(ctx, upkeep, waits) == nil {
					samples++
				}
			}
		}
	})
	requests, runErr := fn()
	close(stop)
	wg.Wait()
	if runErr != nil {
		return nil, runErr
	}
	after, err := w.snapshot(ctx)
	if err != nil {
		fmt.Fprintf(w.stderr, "  pg watch: %v\n", err)
		return nil, nil
	}
	r := roundOf(label, before, after, requests)
	r.Samples, r.Upkeep, r.Waits = samples, upkeep, waits
	return r, nil
}

// snapshot reads the counters a round's deltas are taken from.
func (w *pgWatch) snapshot(ctx context.Context) (dbState, error) {
	s := dbState{at: time.Now(), load: loadAverage(), tables: map[string]tableStat{}}
	rows, err := w.db.QueryContext(ctx, `
		SELECT relname, n_tup_ins, n_tup_upd, n_tup_del, n_dead_tup, n_mod_since_analyze,
		       autovacuum_count, autoanalyze_count, vacuum_count, analyze_count
		FROM pg_stat_user_tables`)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var t tableStat
		if err := rows.Scan(&name, &t.ins, &t.upd, &t.del, &t.dead, &t.mod, &t.autovac, &t.autoan, &t.vac, &t.an); err != nil {
			return s, err
		}
		s.tables[name] = t
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	if err := w.db.QueryRowContext(ctx, `
		SELECT (SELECT wal_bytes::bigint FROM pg_stat_wal),
		       (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()),
		       (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter),
		       (SELECT buffers_checkpoint FROM pg_stat_bgwriter)`).Scan(&s.wal, &s.commits, &s.checkpoints, &s.cpBufs); err != nil {
		return s, err
	}
	if w.gin {
		s.gin = map[string]int64{}
		for _, ix := range []string{"search_docs_lower", "nodes_title_trgm"} {
			var pages int64
			if err := w.db.QueryRowContext(ctx, `SELECT pending_pages FROM pgstatginindex($1::regclass)`, ix).Scan(&pages); err == nil {
				s.gin[ix] = pages
			}
		}
	}
	s.quire, s.all = -1, -1
	if st, err := procStat(w.quire); err == nil {
		s.quire = st.cpu
	}
	if w.master != 0 {
		s.clients, s.all = w.clusterCPU(ctx)
	}
	return s, nil
}

// clusterCPU is the CPU in milliseconds of each live client backend (this watch's own left
// out) and of all the cluster's processes: the postmaster's children alive now, and through the
// postmaster's reaped-children times those that exited (autovacuum workers, closed backends).
func (w *pgWatch) clusterCPU(ctx context.Context) (clients map[int]float64, all float64) {
	clients = map[int]float64{}
	rows, err := w.db.QueryContext(ctx, `SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend'`)
	if err == nil {
		for rows.Next() {
			var pid int
			if rows.Scan(&pid) == nil && pid != w.self {
				clients[pid] = 0
			}
		}
		rows.Close()
	}
	m, err := procStat(w.master)
	if err != nil {
		return nil, -1
	}
	all = m.cpu + m.children
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := procStat(pid)
		if err != nil || st.ppid != w.master {
			continue
		}
		all += st.cpu
		if _, ok := clients[pid]; ok {
			clients[pid] = st.cpu
		}
	}
	return clients, all
}

// clientDelta is the CPU the client backends used between a and b: a backend alive at both
// counts its difference, one that started in between counts all of its CPU, and one that ended
// in between is lost (its time is in the cluster's figure). -1 when either was not read.
func clientDelta(a, b map[int]float64) float64 {
	if a == nil || b == nil {
		return -1
	}
	d := 0.0
	for pid, cpu := range b {
		d += cpu - a[pid]
	}
	return d
}

// sample counts what pg_stat_activity shows now: maintenance queries, and each active client
// backend's wait.
func (w *pgWatch) sample(ctx context.Context, upkeep, waits map[string]int) error {
	rows, err := w.db.QueryContext(ctx, `
		SELECT backend_type, coalesce(wait_event_type, ''), coalesce(wait_event, ''), left(coalesce(query, ''), 80)
		FROM pg_stat_activity
		WHERE pid <> pg_backend_pid() AND (backend_type = 'autovacuum worker' OR
		      (backend_type = 'client backend' AND state = 'active'))`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var kind, wtype, wevent, query string
		if err := rows.Scan(&kind, &wtype, &wevent, &query); err != nil {
			return err
		}
		q := strings.ToUpper(strings.TrimSpace(query))
		switch {
		case kind == "autovacuum worker":
			upkeep[query]++
		case strings.HasPrefix(q, "VACUUM") || strings.HasPrefix(q, "ANALYZE") || strings.Contains(q, "GIN_CLEAN_PENDING_LIST"):
			upkeep[query]++
		}
		if kind == "client backend" {
			key := "CPU"
			if wtype != "" {
				key = wtype + ":" + wevent
			}
			waits[key]++
		}
	}
	return rows.Err()
}

// roundOf takes the deltas between two snapshots.
func roundOf(label string, a, b dbState, requests int64) *dbRound {
	r := &dbRound{Label: label, Load: b.load, Seconds: b.at.Sub(a.at).Seconds(), Requests: requests,
		QuireCPU: cpuDelta(a.quire, b.quire), ClientCPU: clientDelta(a.clients, b.clients), ClusterCPU: cpuDelta(a.all, b.all),
		WALBytes: b.wal - a.wal, Commits: b.commits - a.commits,
		Checkpoints: b.checkpoints - a.checkpoints, CheckpointBuffers: b.cpBufs - a.cpBufs,
		GINBefore: a.gin, GINAfter: b.gin}
	for _, name := range slices.Sorted(maps.Keys(b.tables)) {
		t, o := b.tables[name], a.tables[name]
		d := tableDelta{Table: name, Inserted: t.ins - o.ins, Updated: t.upd - o.upd, Deleted: t.del - o.del,
			DeadAfter: t.dead, ModAfter: t.mod, Autovacuums: t.autovac - o.autovac, Autoanalyzes: t.autoan - o.autoan,
			Vacuums: t.vac - o.vac, Analyzes: t.an - o.an}
		if d.Inserted+d.Updated+d.Deleted+d.Autovacuums+d.Autoanalyzes+d.Vacuums+d.Analyzes != 0 {
			r.Tables = append(r.Tables, d)
		}
	}
	return r
}

// cpuDelta is b-a, or -1 when either could not be read.
func cpuDelta(a, b float64) float64 {
	if a < 0 || b < 0 {
		return -1
	}
	return b - a
}

// printRound writes one round as a line or two: the run's figure (p50), CPU a request, what
// upkeep ran, which tables changed, the GIN pending lists, and the active backends' waits.
func printRound(out io.Writer, r *dbRound, figure string) {
	if r == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  pg %s (load %s): %s%.1f s", r.Label, r.Load, figure, r.Seconds)
	if r.Requests > 0 {
		n := float64(r.Requests)
		fmt.Fprintf(&b, ", CPU a request quire %.2f ms, backends %.2f ms, cluster %.2f ms", r.QuireCPU/n, r.ClientCPU/n, r.ClusterCPU/n)
	} else {
		fmt.Fprintf(&b, ", CPU quire %.0f ms, backends %.0f ms, cluster %.0f ms", r.QuireCPU, r.ClientCPU, r.ClusterCPU)
	}
	fmt.Fprintf(&b, "; WAL %.1f MB, %d commits, %d checkpoints (%d buffers)", float64(r.WALBytes)/1e6, r.Commits, r.Checkpoints, r.CheckpointBuffers)
	for _, t := range r.Tables {
		if t.Autovacuums+t.Autoanalyzes+t.Vacuums+t.Analyzes > 0 {
			fmt.Fprintf(&b, "; %s vacuumed %d (auto %d) analyzed %d (auto %d)", t.Table, t.Vacuums+t.Autovacuums, t.Autovacuums, t.Analyzes+t.Autoanalyzes, t.Autoanalyzes)
		}
	}
	for _, ix := range slices.Sorted(maps.Keys(r.GINAfter)) {
		if r.GINBefore[ix]+r.GINAfter[ix] > 0 {
			fmt.Fprintf(&b, "; %s pending %d→%d pages", ix, r.GINBefore[ix], r.GINAfter[ix])
		}
	}
	if len(r.Upkeep) > 0 {
		fmt.Fprintf(&b, "\n    upkeep seen (of %d samples): %s", r.Samples, countsText(r.Upkeep))
	}
	if len(r.Waits) > 0 {
		fmt.Fprintf(&b, "\n    active backends' waits (of %d samples): %s", r.Samples, countsText(r.Waits))
	}
	fmt.Fprintln(out, b.String())
}

// countsText is "key n, key n" by count, largest first.
func countsText(m map[string]int) string {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// procStats is what /proc/PID/stat says of a process: its parent, and its CPU and its reaped
// children's CPU in milliseconds.
type procStats struct {
	ppid          int
	cpu, children float64
}

// procStat reads /proc/pid/stat.
func procStat(pid int) (procStats, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStats{}, err
	}
	// The command name (field 2) is in parentheses and may hold spaces; fields count from after it.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStats{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return procStats{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	num := func(k int) float64 { // field k of stat(5), 3 being the first after the name
		v, _ := strconv.ParseFloat(f[k-3], 64)
		return v
	}
	ms := 1000.0 / clockTicks
	return procStats{ppid: int(num(4)), cpu: (num(14) + num(15)) * ms, children: (num(16) + num(17)) * ms}, nil
}
