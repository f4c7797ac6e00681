package main

import (
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"slices"
	"time"

	"github.com/quire-dev/quire/internal/store"
)

// The crash test's look into the store itself, with the server killed: the file or database
// must be whole, and the search index and embedding queue, which triggers keep inside each
// writing transaction, must agree with the content. The drivers are registered by the store
// package, which this binary links.

// consistency lists queries that count rows breaking an invariant; each must answer 0.
var consistency = []struct{ what, query string }{
	{"nodes whose title is missing from the search index or stale there", `
		SELECT COUNT(*) FROM nodes n WHERE NOT EXISTS (
			SELECT 1 FROM search_docs d WHERE d.ref = n.id AND d.field = 'title' AND d.text = n.title_plain)`},
	{"search entries of blocks that are gone or in trash", `
		SELECT COUNT(*) FROM search_docs d WHERE d.field = 'body' AND d.ref NOT LIKE '%:%' AND NOT EXISTS (
			SELECT 1 FROM blocks b WHERE b.id = d.ref AND b.in_trash = FALSE)`},
	{"live paragraphs missing from the search index", `
		SELECT COUNT(*) FROM blocks b WHERE b.in_trash = FALSE AND b.type = 'paragraph' AND NOT EXISTS (
			SELECT 1 FROM search_docs d WHERE d.ref = b.id AND d.node_id = b.page_id)`},
	{"mind-map nodes missing from the search index or stale there", `
		SELECT COUNT(*) FROM mind_map_nodes m WHERE m.text <> '' AND NOT EXISTS (
			SELECT 1 FROM search_docs d WHERE d.ref = m.mind_map_id || ':' || m.id AND d.text = m.text)`},
	{"search entries of nodes that do not exist", `
		SELECT COUNT(*) FROM search_docs d WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = d.node_id)`},
	{"nodes with text that are neither embedded nor queued", `
		SELECT COUNT(DISTINCT d.node_id) FROM search_docs d WHERE d.text <> ''
		AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.node_id = d.node_id)
		AND NOT EXISTS (SELECT 1 FROM embed_pending q WHERE q.node_id = d.node_id)`},
	{"record values of records that do not exist", `
		SELECT COUNT(*) FROM record_values v WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = v.record_id)`},
}

func (h *harness) openStore() *sql.DB {
	h.t.Helper()
	var db *sql.DB
	var err error
	if h.sqliteFile != "" {
		u := (&url.URL{Scheme: "file", Path: h.sqliteFile}).String()
		db, err = sql.Open("sqlite", u+"?_pragma=busy_timeout(10000)")
	} else {
		db, err = sql.Open("pgx", h.databaseURL)
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return db
}

// checkStore opens the store of the killed server (for SQLite this is what recovers its WAL)
// and checks it; it notes which embedding jobs the killed server held leased at killMs.
func (h *harness) checkStore(killMs int64) {
	h.t.Helper()
	db := h.openStore()
	defer db.Close()
	if h.sqliteFile != "" {
		h.checkSQLiteFile(db)
	}
	for _, c := range consistency {
		var n int64
		if err := db.QueryRow(c.query).Scan(&n); err != nil {
			h.t.Fatalf("%s: %v", c.what, err)
		}
		if n != 0 {
			h.t.Errorf("after the kill: %d %s", n, c.what)
		}
	}
	h.leased = h.queued(db, `SELECT node_id FROM embed_queue WHERE not_before > $1`, killMs)
}

func (h *harness) checkSQLiteFile(db *sql.DB) {
	h.t.Helper()
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		h.t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	rows, err := db.Query(`PRAGMA integrity_check`)
	if err != nil {
		h.t.Fatal(err)
	}
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			h.t.Fatal(err)
		}
		problems = append(problems, s)
	}
	rows.Close()
	if !slices.Equal(problems, []string{"ok"}) {
		h.t.Errorf("PRAGMA integrity_check: %v", problems)
	}
	rows, err = db.Query(`PRAGMA foreign_key_check`)
	if err != nil {
		h.t.Fatal(err)
	}
	if rows.Next() {
		h.t.Errorf("PRAGMA foreign_key_check found violations")
	}
	rows.Close()
	// The entries the killed server had not indexed yet (migration 00027) go into the index as
	// the next server's upkeep loop puts them; then the index must agree with every entry.
	st, err := store.Open(context.Background(), store.Config{Dir: filepath.Dir(h.sqliteFile)})
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := st.IndexSearch(context.Background()); err != nil {
		h.t.Errorf("index the entries above the mark: %v", err)
	}
	if err := st.Close(); err != nil {
		h.t.Fatal(err)
	}
	// The full-text index against its content table (rank 1 asks for that comparison).
	if _, err := db.Exec(`INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		h.t.Errorf("FTS5 integrity-check: %v", err)
	}
}

func (h *harness) queued(db *sql.DB, query string, args ...any) map[string]bool {
	h.t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		h.t.Fatal(err)
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			h.t.Fatal(err)
		}
		ids[id] = true
	}
	return ids
}

// waitEmbedded waits until the restarted server's indexer has embedded every queued node,
// except, unless all, those that killed servers held leased: they wait for their lease to
// expire (two minutes) before an indexer takes them again.
func (h *harness) waitEmbedded(all bool) (waited time.Duration, leasedLeft int) {
	h.t.Helper()
	db := h.openStore()
	defer db.Close()
	start := time.Now()
	for {
		left := h.queued(db, `SELECT node_id FROM embed_pending`)
		var other []string
		for id := range left {
			if all || !h.leased[id] {
				other = append(other, id)
			}
		}
		if len(other) == 0 {
			return time.Since(start), len(left)
		}
		if time.Since(start) > 4*time.Minute {
			h.t.Fatalf("%d nodes still queued for embedding 4 minutes after the restart (%d were leased by killed servers); e.g. %v",
				len(other), len(h.leased), other[:min(3, len(other))])
		}
		time.Sleep(200 * time.Millisecond)
	}
}
