package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// scenarioSpeed is --scenario speed: issue 15's speed table, row by row.
const scenarioSpeed = "speed"

// speedSet is what --scenario speed measured on one engine.
type speedSet struct {
	Engine      string    `json:"engine"`
	Size        speedSize `json:"size"`
	Seed        speedSeed `json:"seed"`
	RecordsSeed phase     `json:"records"` // seeding the records, then the indexer embedding them
	CorpusSeed  phase     `json:"corpus"`  // the corpus pages, likewise
	Load        string    `json:"load_average"`
	LoadAfter   string    `json:"load_average_after"`
	Steady      []row     `json:"steady"`
	// While is the query and the search at c=1 while the indexer embeds the revised corpus,
	// with the queue's length around each round; Revised is that queue's length at the start.
	While   []row `json:"while_indexing"`
	Revised int64 `json:"revised_queue"`

	// Repeat is --repeat: the seedings, the append's rounds at c=1 (times --rounds) and the
	// bursts of revisions of the run. Runs saved before it have none of what follows.
	Repeat int `json:"repeat,omitempty"`
	// RecordsEarlier are the seedings of the records into stores of their own before the kept
	// one (RecordsSeed): their writes only.
	RecordsEarlier []phase `json:"records_earlier,omitempty"`
	// WhileSteady is the query and the search at c=1 just before each burst of revisions, a
	// round each: While's round k is compared with its round k. RevisedQueues is the queue's
	// length after each burst (Revised is the first).
	WhileSteady   []row   `json:"while_steady,omitempty"`
	RevisedQueues []int64 `json:"revised_queues,omitempty"`
	// Noisy is the repeated rows' medians and ranges, as the report gives them.
	Noisy *noisyRows `json:"noisy,omitempty"`
}

// phase is one bulk write over HTTP and the indexer's work on it.
type phase struct {
	Writes    int     `json:"writes"`          // records or pages written
	WriteSecs float64 `json:"write_seconds"`   // from the first write to the last answer
	IndexSecs float64 `json:"index_seconds"`   // from the first write until the queue was empty
	Chunks    int64   `json:"chunks_embedded"` // by the server's indexer meanwhile (its /metrics)
	// WriteChunks of Chunks were embedded before the last write was answered.
	WriteChunks int64 `json:"chunks_embedded_while_writing"`
	Reused      int64 `json:"chunks_reused"`
	// DB is what PostgreSQL did during the writes.
	DB *dbRound `json:"db,omitempty"`
}

// speed runs the scenario on engine eng: a fresh store with only a workspace, its members and a
// token seeded in process; quire serve on it; then every row's data written over HTTP and timed,
// the steady rows measured after the indexer's queue drained, and the query and search rows
// again while it embeds the corpus a second time. With --repeat N the records are first seeded
// into N-1 stores of their own, the append at c=1 gets N times the rounds, and the query and
// search are measured after N bursts of revisions (speed_repeat.go).
func (r *runner) speed(ctx context.Context, eng string, pg *postgresServer, size speedSize) (*speedSet, error) {
	set := &speedSet{Engine: eng, Size: size, Repeat: r.cfg.repeat}
	if r.cfg.keepStore != "" {
		set.Repeat = 1 // a kept store is seeded once
	}
	for i := 1; i < set.Repeat; i++ {
		p, err := r.seedOnly(ctx, eng, pg, size, i, set.Repeat)
		if err != nil {
			return nil, err
		}
		set.RecordsEarlier = append(set.RecordsEarlier, p)
	}
	fs, err := r.fresh(ctx, eng, pg)
	if err != nil {
		return nil, err
	}
	kept := false
	defer func() {
		if !kept {
			fs.remove()
		}
	}()
	sd := &set.Seed
	if sd.Token, sd.Users, err = setupWorkspace(ctx, fs.cfg); err != nil {
		return nil, err
	}
	sv, err := r.serve(ctx, fs, sd.Token)
	if err != nil {
		return nil, err
	}
	defer sv.stop()
	q, poll, died := sv.q, sv.poll, sv.died
	w := newSpeedWriter(r, sv, sd.Token)
	if err := w.seed(ctx, set); err != nil {
		return nil, died(err)
	}
	if err := analyze(ctx, fs.cfg); err != nil {
		return nil, err
	}
	first := time.Duration(0)
	if sd.Matches, first, err = w.s.countMatches(ctx, sd.Database); err != nil {
		return nil, died(err)
	}
	sd.FirstQuery = first.Seconds()
	if want := opt7Records(size.Records); sd.Matches != want {
		return nil, fmt.Errorf("the query matched %d records; %d of those written have opt7", sd.Matches, want)
	}
	sd.Words, sd.WordParas = searchWords(size.Pages, speedSearchWords)
	if err := w.checkSearch(ctx, sd); err != nil {
		return nil, died(err)
	}
	eps := speedEndpoints(sd)
	if r.cfg.keepStore != "" {
		sv.stop()
		kept = true
		return nil, keepStore(r.cfg.keepStore, fs.cfg, sd, eps)
	}
	set.Load = loadAverage()
	if err := r.prepareLoader(eps, sd.Token); err != nil {
		return nil, err
	}
	fmt.Fprintf(r.stderr, "  steady: %s …\n", estimate(r.cfg, len(eps)).Round(time.Second))
	m := &measurer{cfg: r.cfg, loader: r.loader, urls: [2]string{q.url, r.bare}, stderr: r.stderr, watch: sv.watch,
		drain: func() error { return waitIndexed(ctx, poll, q.exited, io.Discard, time.Now()) }}
	if set.Steady, err = m.measure(ctx, eps); err != nil {
		return nil, died(err)
	}
	if err := r.appendRepeats(ctx, sv, eps, set.Steady, set.Repeat); err != nil {
		return nil, died(err)
	}
	if set.While, set.WhileSteady, set.RevisedQueues, err = w.whileIndexing(ctx, sd, eps, set.Repeat); err != nil {
		return nil, died(err)
	}
	set.Revised = set.RevisedQueues[0]
	set.LoadAfter = loadAverage()
	set.Noisy = noisyOf(*set)
	return set, nil
}

// errKept ends a --keep-store run after its store was kept: nothing is measured.
var errKept = errors.New("store kept")

// keptSeed is speed-seed.json beside a kept store: what a profile of one row needs to send
// the table's own requests.
type keptSeed struct {
	DatabaseURL string      `json:"database_url,omitempty"` // PostgreSQL: the kept database
	Token       string      `json:"token"`
	Database    string      `json:"database"`
	Long        string      `json:"long_page"`
	Words       []string    `json:"words"`
	Requests    []keptRound `json:"requests"`
}

type keptRound struct {
	Row    string `json:"row"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Body   string `json:"body,omitempty"`
}

// keepStore keeps the stopped server's store: SQLite's folder is moved to dir, PostgreSQL's
// database is left on the server and named in dir's speed-seed.json, which is written beside
// either; then it answers errKept.
func keepStore(dir string, cfg store.Config, sd *speedSeed, eps []endpoint) error {
	var err error
	if cfg.DatabaseURL != "" {
		err = os.Mkdir(dir, 0o700)
	} else {
		err = os.Rename(cfg.Dir, dir)
	}
	if err != nil {
		return fmt.Errorf("--keep-store: %w", err)
	}
	k := keptSeed{DatabaseURL: cfg.DatabaseURL, Token: sd.Token, Database: sd.Database, Long: sd.Long, Words: sd.Words}
	for _, e := range eps {
		for _, q := range e.reqs {
			k.Requests = append(k.Requests, keptRound{Row: e.name, Method: q.Method, Path: q.Path, Body: q.Body})
		}
	}
	b, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "speed-seed.json"), b, 0o600); err != nil {
		return err
	}
	return errKept
}

// setupWorkspace creates the workspace, its owner and four members, and the token in process.
func setupWorkspace(ctx context.Context, cfg store.Config) (token string, users []string, err error) {
	st, err := store.Open(ctx, cfg)
	if err != nil {
		return "", nil, err
	}
	defer st.Close()
	return newWorkspace(ctx, service.New(st, service.Options{BaseURL: "http://127.0.0.1"}), 4)
}

// speedWriter writes the scenario's data through the running server and times the indexer.
type speedWriter struct {
	*runner
	q     *quireServer
	poll  *store.Store
	watch *pgWatch
	s     *seeder
}

// newSpeedWriter writes through sv with token.
func newSpeedWriter(r *runner, sv *served, token string) *speedWriter {
	return &speedWriter{runner: r, q: sv.q, poll: sv.poll, watch: sv.watch, s: &seeder{api: newRemote(sv.q.url), token: token}}
}

// seed writes the top-level pages and the long page, then the records, then the corpus, each
// bulk write followed by the indexer's drain, so that each phase's indexing is its own.
func (w *speedWriter) seed(ctx context.Context, set *speedSet) error {
	sd, size := &set.Seed, set.Size
	if set.Repeat > 1 {
		fmt.Fprintf(w.stderr, "%s: seeding %d of %d, the store the table measures …\n", engineTitles[set.Engine], set.Repeat, set.Repeat)
	} else {
		fmt.Fprintf(w.stderr, "%s: a fresh store …\n", engineTitles[set.Engine])
	}
	data, err := w.tops(ctx, sd, size)
	if err != nil {
		return err
	}
	batches, err := recordBatches(size.Records, sd.Users)
	if err != nil {
		return err
	}
	if set.RecordsSeed, err = w.phase(ctx, size.Records, "records", func() error { return w.s.speedRecords(ctx, sd, data, batches) }, true); err != nil {
		return err
	}
	fmt.Fprintf(w.stderr, "  %d corpus pages of %d paragraphs …\n", size.Pages, speedParagraphs)
	set.CorpusSeed, err = w.phase(ctx, size.Pages, "pages", func() error { return w.s.speedCorpus(ctx, sd, size.Pages) }, true)
	return err
}

// tops writes the top-level pages and the long page and lets the indexer drain; it returns
// the Data page, the records' database's parent.
func (w *speedWriter) tops(ctx context.Context, sd *speedSeed, size speedSize) (string, error) {
	fmt.Fprintf(w.stderr, "  the long page (%d paragraphs) and %d append targets …\n", size.LongPage, speedTargets)
	data, err := w.s.speedTops(ctx, sd, size)
	if err != nil {
		return "", err
	}
	if err := waitIndexed(ctx, w.poll, w.q.exited, w.stderr, time.Now()); err != nil {
		return "", err
	}
	fmt.Fprintf(w.stderr, "  %d records through POST …/mutations (batches of 100, %d at a time) …\n", size.Records, seedWorkers)
	return data, nil
}

// phase times write and then, when index is true, the indexer until its queue is empty.
func (w *speedWriter) phase(ctx context.Context, n int, things string, write func() error, index bool) (phase, error) {
	p := phase{Writes: n}
	e0, r0, err := indexerCounters(ctx, w.q.url)
	if err != nil {
		return p, err
	}
	w.s.done.Store(0)
	stop := w.s.progressOf(n, things, w.stderr)
	start := time.Now()
	if w.watch != nil {
		p.DB, err = w.watch.watched(ctx, things+" written", func() (int64, error) { return 0, write() })
		printRound(w.stderr, p.DB, "")
	} else {
		err = write()
	}
	stop()
	if err != nil {
		return p, err
	}
	p.WriteSecs = time.Since(start).Seconds()
	// What the indexer embedded while the writes came: it steps aside for requests, so most of
	// a phase's embedding follows its last write (docs/performance.md, "Indexer throughput,
	// eleventh pass").
	e, _, err := indexerCounters(ctx, w.q.url)
	if err != nil {
		return p, err
	}
	p.WriteChunks = e - e0
	if !index {
		fmt.Fprintf(w.stderr, "  written in %.1f s (%.0f/s), %d chunks embedded meanwhile\n", p.WriteSecs, float64(n)/p.WriteSecs, p.WriteChunks)
		return p, nil
	}
	fmt.Fprintf(w.stderr, "  written in %.1f s (%.0f/s), %d chunks embedded meanwhile; indexing …\n", p.WriteSecs, float64(n)/p.WriteSecs, p.WriteChunks)
	if err := waitIndexed(ctx, w.poll, w.q.exited, w.stderr, start); err != nil {
		return p, err
	}
	p.IndexSecs = time.Since(start).Seconds()
	e1, r1, err := indexerCounters(ctx, w.q.url)
	p.Chunks, p.Reused = e1-e0, r1-r0
	fmt.Fprintf(w.stderr, "  queue empty %.1f s after the first write: %d chunks embedded\n", p.IndexSecs, p.Chunks)
	return p, err
}

// checkSearch fails unless each WORD finds something: the search row must measure answers.
func (w *speedWriter) checkSearch(ctx context.Context, sd *speedSeed) error {
	for _, word := range sd.Words {
		var out struct {
			Results []any `json:"results"`
		}
		if err := w.s.call(ctx, "POST", "/v2/search", map[string]any{"query": word, "page_size": 20}, &out); err != nil {
			return err
		}
		if len(out.Results) == 0 {
			return fmt.Errorf("POST /v2/search %q found nothing; the corpus has it in %d paragraphs", word, sd.WordParas[word])
		}
	}
	return nil
}

// speedEndpoints are the table's rows over the seeded data, in measuring order (the append
// last: it queues work for the indexer, which is let finish after each of its runs).
func speedEndpoints(sd *speedSeed) []endpoint {
	r := newRand(42, 7)
	page := endpoint{name: "page", label: "GET /v2/pages/{id}"}
	for _, p := range sample(r, sd.Corpus, 1000) {
		page.reqs = append(page.reqs, request{"GET", "/v2/pages/" + p, ""})
	}
	children := endpoint{name: "children", label: "GET /v2/blocks/{id}/children",
		reqs: []request{{"GET", "/v2/blocks/" + sd.Long + "/children?page_size=100", ""}}}
	query := endpoint{name: "query", label: "POST /v2/databases/{id}/query",
		reqs: []request{{"POST", "/v2/databases/" + sd.Database + "/query", speedQueryBody()}}}
	search := endpoint{name: "search", label: "POST /v2/search"}
	for _, word := range sd.Words {
		search.reqs = append(search.reqs, request{"POST", "/v2/search", mustJSON(map[string]any{"query": word, "page_size": 20})})
	}
	app := endpoint{name: "append", label: "PATCH /v2/blocks/{id}/children", grows: true}
	for k, p := range sd.Targets {
		children := make([]any, 100)
		for j := range children {
			children[j] = map[string]any{"type": "paragraph", "paragraph": map[string]any{
				"rich_text": richText(sentence(r, topics[(k+j)%len(topics)], j))}}
		}
		app.reqs = append(app.reqs, request{"PATCH", "/v2/blocks/" + p + "/children", mustJSON(map[string]any{"children": children})})
	}
	return []endpoint{page, children, query, search, app}
}
