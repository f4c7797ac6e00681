package service_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// benchSchema is the benchmarks' ten properties: the anchors' data set (title, text, number,
// select of 20 options, multi_select of 10 tags, checkbox, date) plus status, url and email.
func benchSchema() string {
	opts := make([]string, 20)
	for i := range opts {
		opts[i] = fmt.Sprintf(`{"name":"opt%d"}`, i)
	}
	tags := make([]string, 10)
	for i := range tags {
		tags[i] = fmt.Sprintf(`{"name":"tag%d"}`, i)
	}
	return `{"title":{"title":{}},"text":{"rich_text":{}},"num":{"number":{}},
		"sel":{"select":{"options":[` + strings.Join(opts, ",") + `]}},
		"tags":{"multi_select":{"options":[` + strings.Join(tags, ",") + `]}},
		"done":{"checkbox":{}},"date":{"date":{}},"stage":{"status":{}},"site":{"url":{}},"mail":{"email":{}}}`
}

// benchWords is the text's vocabulary: each word is in about 6% of the records' text.
var benchWords = func() []string {
	w := make([]string, 200)
	for i := range w {
		w[i] = fmt.Sprintf("w%03dx", (i*7919)%1000)
	}
	return w
}()

// seedRecords creates a database of n records under the workspace and writes its records in
// bulk through the store: the rows a record write would store (the stored values and
// record_values from package properties), many per statement, in one transaction, every
// property registered as indexed (as a store migrated with its rows has them).
func seedRecords(b *testing.B, st *store.Store, svc *service.Service, p *quire.Principal, n int) *quire.Node {
	b.Helper()
	schema, err := properties.DecodeSchema(json.RawMessage(benchSchema()), "properties")
	if err != nil {
		b.Fatal(err)
	}
	db, err := svc.CreateDatabase(ctx, p, service.NewDatabase{Parent: service.Parent{Type: quire.ParentWorkspace},
		Title: blocks.Plain(fmt.Sprintf("Bench %d", n)), Schema: schema})
	if err != nil {
		b.Fatal(err)
	}
	schema, _ = service.DatabaseSchema(db)
	by := func(name string) *quire.Property { return schema.ByName(name) }
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	err = st.InTx(ctx, func(tx *store.Tx) error {
		if err := indexAll(tx, db.ID, schema); err != nil {
			return err
		}
		nodes := &bulk{tx: tx, head: `INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, parent_id, position,
			title, title_plain, properties, description, created_ms, created_by, edited_ms, edited_by) VALUES `, cols: 10,
			row: `(%s, %s, 'page', 'page', 'database_id', %s, 'a', %s, %s, %s, '[]', %s, %s, %s, %s)`, sqlite: st.Engine() == store.SQLite}
		values := &bulk{tx: tx, head: `INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num) VALUES `,
			cols: 6, row: `(%s, %s, %s, %s, %s, %s)`, sqlite: st.Engine() == store.SQLite}
		for i := range n {
			h := uint64(i)*2654435761 + 12345
			var text []string
			for j := range 12 {
				text = append(text, benchWords[(int(h>>(j*3))+j*31+i)%len(benchWords)])
			}
			vals := properties.Values{
				"title":       {Type: "title", RichText: blocks.Plain(fmt.Sprintf("Record %d", i))},
				by("text").ID: {Type: "rich_text", RichText: blocks.Plain(strings.Join(text, " "))},
				by("num").ID:  {Type: "number", Number: float64(h % 1000000)},
				by("sel").ID:  {Type: "select", ID: by("sel").Options[i%20].ID},
				by("tags").ID: {Type: "multi_select", IDs: []string{by("tags").Options[i%10].ID, by("tags").Options[(i/10)%10].ID}},
				by("date").ID: {Type: "date", Date: &properties.Date{Start: time.UnixMilli(base + int64(i%365)*86400000).UTC().Format(time.DateOnly)}},
				by("site").ID: {Type: "url", Text: fmt.Sprintf("https://example.com/%d", i)},
				by("mail").ID: {Type: "email", Text: fmt.Sprintf("r%d@example.com", i)},
			}
			if i%2 == 1 {
				vals[by("done").ID] = properties.Value{Type: "checkbox", Checkbox: true}
			}
			if i%3 > 0 {
				vals[by("stage").ID] = properties.Value{Type: "status", ID: by("stage").Options[i%3].ID}
			}
			// The database id's last (random) hex digits keep records of two databases apart:
			// its first ones are the time of a UUIDv7 and repeat for a minute.
			id := db.ID[len(db.ID)-8:] + fmt.Sprintf("-%04x-4000-8000-%012x", i%65536, i)
			title := vals["title"].RichText
			ms := base + int64(i)*1000
			if err := nodes.add(id, p.WorkspaceID(), db.ID, string(blocks.AppendRichText(nil, title)), title.PlainText(),
				string(properties.MarshalValues(vals)), ms, p.Token.OwnerID, ms, p.Token.OwnerID); err != nil {
				return err
			}
			num := float64(i + 1)
			if err := values.add(db.ID, id, store.NumberProperty, 0, nil, num); err != nil {
				return err
			}
			for _, sc := range properties.Scalars(schema, vals, int64(i+1)) {
				var t, v any
				if sc.Text != nil {
					t = *sc.Text
				}
				if sc.Num != nil {
					v = *sc.Num
				}
				if err := values.add(db.ID, id, sc.PropertyID, sc.Ord, t, v); err != nil {
					return err
				}
			}
		}
		if err := nodes.flush(); err != nil {
			return err
		}
		return values.flush()
	})
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// bulk gathers rows into multi-row INSERT statements of 500 rows.
type bulk struct {
	tx        *store.Tx
	head, row string
	cols      int
	args      []any
	sqlite    bool // "?" placeholders: SQLite looks numbered ones up in a list, quadratic in their count
}

func (k *bulk) add(args ...any) error {
	k.args = append(k.args, args...)
	if len(k.args) >= 500*k.cols {
		return k.flush()
	}
	return nil
}

func (k *bulk) flush() error {
	if len(k.args) == 0 {
		return nil
	}
	var sb strings.Builder
	sb.WriteString(k.head)
	idx := make([]any, k.cols)
	for r := 0; r < len(k.args)/k.cols; r++ {
		if r > 0 {
			sb.WriteString(", ")
		}
		for c := range idx {
			idx[c] = "?"
			if !k.sqlite {
				idx[c] = fmt.Sprintf("$%d", r*k.cols+c+1)
			}
		}
		fmt.Fprintf(&sb, k.row, idx...)
	}
	err := k.tx.ExecForTest(context.Background(), sb.String(), k.args...)
	k.args = k.args[:0]
	return err
}

// benchQueries are the measured queries, with the targets (SQLite p50).
var benchQueries = []struct{ name, body string }{
	{"select_equals+number_sort", `{"filter":{"property":"sel","select":{"equals":"opt7"}},"sorts":[{"property":"num","direction":"ascending"}],"page_size":100}`},
	{"rich_text_contains", `{"filter":{"property":"text","rich_text":{"contains":"w037x"}},"page_size":100}`},
	{"and_or_three_properties", `{"filter":{"and":[{"property":"sel","select":{"equals":"opt7"}},{"or":[{"property":"done","checkbox":{"equals":true}},{"property":"num","number":{"greater_than":500000}}]}]},"page_size":100}`},
}

// BenchmarkDatabases measures, on each engine, queries of a database of 100,000 records with
// ten properties (targets on SQLite: select equals + number sort p50 < 10 ms, rich_text
// contains < 50 ms, and/or on three properties < 20 ms), a 100-operation mutation batch
// (< 30 ms), and the first query on 1,000, 10,000 and 100,000 records. Run it with
// go test -run '^$' -bench Databases -benchtime 50x ./internal/service/
//
// With QUIRE_BENCH_STORE set to a folder, SQLite's store lives there and keeps the databases
// seeded by the first run (bench.json names them and the token that reads them) for the runs
// after it: seeding 111,000 records takes minutes. The mutation batch changes the store, so
// compare two builds on copies of one seeded folder.
func BenchmarkDatabases(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			st, settle, pgURL := openBenchStore(b, e.name)
			svc, p, secret := callerToken(b, st)
			// Databases are seeded when a sub-benchmark first needs one, so that -bench can pick.
			seeded := map[int]*quire.Node{}
			kept := keptDatabases(b, st, e.name, secret)
			if kept != nil {
				svc, p, seeded = kept.svc, kept.p, kept.seeded
			}
			db := func(b *testing.B, n int) *quire.Node {
				if seeded[n] == nil {
					start := time.Now()
					seeded[n] = seedRecords(b, st, svc, p, n)
					settle()
					// Seeding grows the heap to hundreds of megabytes: returned to the system now,
					// rather than by the scavenger and the collector while later sub-benchmarks
					// are timed, where their CPU counted in cpu-ms.
					debug.FreeOSMemory()
					fmt.Printf("%s: seeded %d records in %v\n", e.name, n, time.Since(start).Round(time.Millisecond))
					kept.save(b, seeded)
				}
				return seeded[n]
			}
			query := func(b *testing.B, db *quire.Node, body string) {
				q, err := service.DecodeRecordQuery([]byte(body))
				if err != nil {
					b.Fatal(err)
				}
				timedServer(b, pgURL, func() {
					pg, err := svc.QueryDatabase(ctx, p, db.ID, q)
					if err != nil || len(pg.Items) == 0 {
						b.Fatalf("query: %v (%d records)", err, len(pg.Items))
					}
				})
			}
			for _, bq := range benchQueries {
				b.Run(bq.name+"/records=100000", func(b *testing.B) { query(b, db(b, 100000), bq.body) })
			}
			for _, n := range []int{1000, 10000} {
				b.Run(fmt.Sprintf("%s/records=%d", benchQueries[0].name, n), func(b *testing.B) { query(b, db(b, n), benchQueries[0].body) })
			}
			b.Run("mutations_100/records=100000", func(b *testing.B) {
				db := db(b, 100000)
				q, _ := service.DecodeRecordQuery([]byte(`{"page_size":100}`))
				pg, err := svc.QueryDatabase(ctx, p, db.ID, q)
				if err != nil {
					b.Fatal(err)
				}
				round := 0
				timedServer(b, pgURL, func() {
					round++
					ops := make([]service.Mutation, 0, 100)
					for i, r := range pg.Items {
						props := map[string]any{"num": map[string]any{"number": float64(round*1000 + i)},
							"sel": map[string]any{"select": map[string]any{"name": fmt.Sprintf("opt%d", (round+i)%20)}}}
						if i%4 == 0 {
							ops = append(ops, service.Mutation{Op: "create", Properties: map[string]any{
								"title": []any{map[string]any{"text": map[string]any{"content": "new"}}}, "num": map[string]any{"number": 1.0}},
								Path: fmt.Sprintf("mutations[%d]", i)})
							continue
						}
						ops = append(ops, service.Mutation{Op: "update", PageID: r.ID, Properties: props, Path: fmt.Sprintf("mutations[%d]", i)})
					}
					if _, err := svc.MutateRecords(ctx, p, db.ID, ops); err != nil {
						b.Fatal(err)
					}
				})
			})
		})
	}
}

// openBenchStore opens a fresh store on engine, and settle, which brings the store to the
// state it reaches in service after a bulk load: on PostgreSQL, what autovacuum does (VACUUM
// ANALYZE: statistics and the visibility map that index-only scans need); on SQLite nothing,
// as nothing runs ANALYZE there (the plans are made not to need it). pgURL is the PostgreSQL
// database's URL ("" on SQLite).
func openBenchStore(b *testing.B, engine string) (st *store.Store, settle func(), pgURL string) {
	if dir := os.Getenv("QUIRE_BENCH_STORE"); dir != "" && engine == "sqlite" {
		st, err := store.Open(ctx, store.Config{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return st, func() {}, ""
	}
	if engine != "postgres" {
		return testdb.SQLite(b), func() {}, ""
	}
	url := testdb.PostgresURL(b)
	st, err := store.Open(ctx, store.Config{DatabaseURL: url})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	raw, err := sql.Open("pgx", url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { raw.Close() })
	return st, func() {
		if _, err := raw.Exec(`VACUUM ANALYZE nodes, record_values`); err != nil {
			b.Fatal(err)
		}
	}, url
}

// kept are the databases of a QUIRE_BENCH_STORE folder, and the caller that reads them.
type kept struct {
	path   string
	secret string
	svc    *service.Service
	p      *quire.Principal
	seeded map[int]*quire.Node
}

// keptDatabases reads the folder's bench.json: nil without QUIRE_BENCH_STORE (or on
// PostgreSQL); the databases seeded so far and their caller, or, on a fresh folder, none with
// the caller just made (whose token secret is kept).
func keptDatabases(b *testing.B, st *store.Store, engine, secret string) *kept {
	dir := os.Getenv("QUIRE_BENCH_STORE")
	if dir == "" || engine != "sqlite" {
		return nil
	}
	k := &kept{path: filepath.Join(dir, "bench.json"), secret: secret, seeded: map[int]*quire.Node{}}
	var saved struct {
		Token     string
		Databases map[int]string
	}
	if raw, err := os.ReadFile(k.path); err == nil {
		if err := json.Unmarshal(raw, &saved); err != nil {
			b.Fatal(err)
		}
		k.secret = saved.Token
	}
	k.svc = service.New(st, service.Options{BaseURL: "http://quire.test"})
	p, err := k.svc.Authenticate(ctx, "Bearer "+k.secret)
	if err != nil {
		b.Fatal(err)
	}
	k.p = p
	for n, id := range saved.Databases {
		if k.seeded[n], err = k.svc.Database(ctx, p, id); err != nil {
			b.Fatal(err)
		}
	}
	return k
}

// save writes bench.json (nothing without a folder).
func (k *kept) save(b *testing.B, seeded map[int]*quire.Node) {
	if k == nil {
		return
	}
	ids := map[int]string{}
	for n, db := range seeded {
		ids[n] = db.ID
	}
	raw, err := json.Marshal(map[string]any{"Token": k.secret, "Databases": ids})
	if err == nil {
		err = os.WriteFile(k.path, raw, 0o600)
	}
	if err != nil {
		b.Fatal(err)
	}
}

// timedCPU is timed plus cpu-ms, the mean CPU time of this process per operation: on a
// machine shared with other work, wall times vary with the load and CPU time much less (on
// PostgreSQL it leaves out the server's own CPU).
func timedCPU(b *testing.B, op func()) {
	b.Helper()
	before := cpuTime()
	timed(b, op)
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/1000/float64(b.N), "cpu-ms")
}

// timedServer is timedCPU plus, when pgURL names a PostgreSQL cluster on this machine,
// pg-cpu-ms: the mean CPU time of the server's processes per operation, which cpu-ms leaves
// out. A request to PostgreSQL waits for both, one after the other.
func timedServer(b *testing.B, pgURL string, op func()) {
	b.Helper()
	before, ok := serverCPU(pgURL)
	timedCPU(b, op)
	if after, ok2 := serverCPU(pgURL); ok && ok2 {
		b.ReportMetric(float64((after-before).Microseconds())/1000/float64(b.N), "pg-cpu-ms")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
