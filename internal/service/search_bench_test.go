package service_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// benchCorpus is a workspace filled in bulk: pages cloned from one template page by SQL (the
// triggers index them as any write), each with blocks cloned from the template's block.
type benchCorpus struct {
	svc   *service.Service
	p     *quire.Principal
	pages int
}

// seedPages makes pages pages ('bp' || i) of blocksPerPage blocks each ('bb' || i): the text
// of page i's title and of block j are SQL expressions of i and j (title, block).
func seedPages(b *testing.B, st *store.Store, opts service.Options, pages, blocksPerPage int, title, block string) *benchCorpus {
	b.Helper()
	opts.BaseURL = "http://quire.test"
	svc := service.New(st, opts)
	_, p := callerOn(b, svc)
	tmpl := newPage(b, svc, p)
	if _, _, err := svc.AppendChildren(ctx, p, tmpl.ID, paragraphs(1, "template"), service.Placement{}); err != nil {
		b.Fatal(err)
	}
	const chunk = 20000
	err := st.InTx(ctx, func(tx *store.Tx) error {
		for lo := 0; lo < pages; lo += chunk {
			hi := min(lo+chunk, pages)
			if err := tx.Exec(ctx, `WITH RECURSIVE seq (i) AS (SELECT CAST($2 AS BIGINT) UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < $3)
				INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, parent_id, position, title, title_plain,
					properties, description, icon, cover, is_inline, in_trash, trashed_under, version, created_ms, created_by, edited_ms, edited_by)
				SELECT 'bp' || CAST(seq.i AS TEXT), t.workspace_id, t.object, t.page_type, t.parent_type, t.parent_id, t.position, t.title, `+title+`,
					t.properties, t.description, t.icon, t.cover, t.is_inline, t.in_trash, t.trashed_under, 1, t.created_ms + seq.i, t.created_by, t.edited_ms + seq.i, t.edited_by
				FROM seq, nodes t WHERE t.id = $1`, tmpl.ID, lo, hi); err != nil {
				return err
			}
		}
		if blocksPerPage == 0 {
			return nil
		}
		total := pages * blocksPerPage
		for lo := 0; lo < total; lo += chunk {
			hi := min(lo+chunk, total)
			if err := tx.Exec(ctx, `WITH RECURSIVE seq (j) AS (SELECT CAST($2 AS BIGINT) UNION ALL SELECT j + 1 FROM seq WHERE j + 1 < $3)
				INSERT INTO blocks (id, workspace_id, page_id, parent_id, position, type, content, in_trash, version, created_ms, created_by, edited_ms, edited_by)
				SELECT 'bb' || CAST(seq.j AS TEXT), t.workspace_id, 'bp' || CAST(seq.j / $4 AS TEXT), 'bp' || CAST(seq.j / $4 AS TEXT),
					t.position || CAST(seq.j AS TEXT), t.type,
					'{"rich_text":[{"type":"text","text":{"content":"x","link":null},"plain_text":"' || `+block+` || '","href":null}],"color":"default"}',
					FALSE, 1, t.created_ms, t.created_by, t.edited_ms, t.edited_by
				FROM seq, blocks t WHERE t.page_id = $1`, tmpl.ID, lo, hi, blocksPerPage); err != nil {
				return err
			}
		}
		return tx.IndexBlocks(ctx) // SQLite: no trigger indexes a block a plain INSERT writes
	})
	if err != nil {
		b.Fatal(err)
	}
	// What SQLite's upkeep loop does after a write (migration 00027): the entries into the
	// trigram indexes, before anything is timed.
	if _, err := st.IndexSearch(ctx); err != nil {
		b.Fatal(err)
	}
	if st.Engine() == store.Postgres {
		// What autovacuum does after a bulk load; the trigram indexes' plans need the statistics.
		if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.Exec(ctx, "ANALYZE") }); err != nil {
			b.Fatal(err)
		}
	}
	return &benchCorpus{svc: svc, p: p, pages: pages}
}

// callerOn is caller for a given service.
func callerOn(t testing.TB, svc *service.Service) (*service.Service, *quire.Principal) {
	t.Helper()
	w, err := svc.CreateWorkspace(ctx, "Bench")
	if err != nil {
		t.Fatal(err)
	}
	u, err := svc.CreateUser(ctx, w.ID, "Ada", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	secret, _, err := svc.CreateToken(ctx, service.TokenSpec{WorkspaceID: w.ID, OwnerID: u.ID, Name: "b",
		Scopes: quire.AllScopes, WorkspaceScoped: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.Authenticate(ctx, "Bearer "+secret)
	if err != nil {
		t.Fatal(err)
	}
	return svc, p
}

// seedVectors stores chunks random unit vectors of the built-in model's size for the pages of
// c, round robin, as the indexer would (through SaveEmbeddings, so versions are kept).
func seedVectors(b *testing.B, st *store.Store, c *benchCorpus, chunks int) {
	b.Helper()
	r := rand.New(rand.NewPCG(7, 8))
	per := chunks / c.pages
	ws := c.p.WorkspaceID()
	for i := range c.pages {
		saveRandomVectors(b, st, r, ws, fmt.Sprintf("bp%d", i), per)
	}
}

// BenchmarkSemanticQuery100k is one semantic query (the built-in model embeds it) over 100,000
// chunks of 25,000 pages (target: p50 < 50 ms), with the vector cache (warm: loaded by an
// earlier query) and, for comparison, streaming every vector from the database.
func BenchmarkSemanticQuery100k(b *testing.B) {
	const pages, chunks = 25000, 100000
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			st := e.open(b)
			c := seedPages(b, st, service.Options{Embedder: embed.Builtin()}, pages, 0, `'Page ' || CAST(seq.i AS TEXT)`, "")
			seedVectors(b, st, c, chunks)
			stream := service.New(st, service.Options{Embedder: embed.Builtin(), VectorCacheBytes: -1})
			for _, v := range []struct {
				name string
				svc  *service.Service
			}{{"cache", c.svc}, {"stream", stream}} {
				b.Run(v.name, func(b *testing.B) {
					q := service.SemanticRequest{Query: "notes from the quarterly budget review", PageSize: 10}
					if _, err := v.svc.SemanticSearch(ctx, c.p, q); err != nil { // loads the cache
						b.Fatal(err)
					}
					timedCPU(b, func() {
						hits, err := v.svc.SemanticSearch(ctx, c.p, q)
						if err != nil || len(hits.Items) != 10 {
							b.Fatalf("%d hits, %v", len(hits.Items), err)
						}
					})
				})
			}
		})
	}
}

// BenchmarkKeywordSearch1M is one page (20 results) of keyword search over 10,000 pages of 100
// blocks, 1,000,000 blocks in all (target: p50 < 20 ms on SQLite). QUIRE_BENCH_BLOCKS sets
// another count of blocks (pages of 100). Block j reads "Meeting notes on the quarterly roadmap,
// item j", then " 项目会议纪要" for one block in ten or " budget", then " tok" and a number
// that appears about once; one page title in a hundred says "quarterly report".
func BenchmarkKeywordSearch1M(b *testing.B) {
	blocks := keyword1MBlocks(b)
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			st := e.open(b)
			start := time.Now()
			c := seedPages(b, st, service.Options{}, blocks/100, 100, keyword1MTitle, keyword1MBlock)
			b.Logf("%s: seeded %d blocks in %s", e.name, blocks, time.Since(start).Round(time.Second))
			for _, tc := range []struct{ name, query string }{
				{"selective", "tok424242"},
				{"two-terms", "item 12345"},
				{"common", "quarterly"},
				{"common-sorted", "quarterly"},
				{"cjk", "会议纪要"},
				{"cjk-2-chars", "会议"},
				{"latin-2-chars-absent", "zq"},
				{"latin-2-chars-absent-mid", "ub"}, // between common trigrams ("uar", "udg")
				{"absent", "zebra"},
			} {
				b.Run(tc.name, func(b *testing.B) {
					r := service.SearchRequest{Query: tc.query, PageSize: 20}
					if tc.name == "common-sorted" {
						r.SortBy = "created_time"
					}
					var n int
					timedCPU(b, func() {
						pg, err := c.svc.Search(ctx, c.p, r)
						if err != nil {
							b.Fatal(err)
						}
						n = len(pg.Items)
					})
					b.ReportMetric(float64(n), "results")
				})
			}
		})
	}
}

// The titles and blocks of BenchmarkKeywordSearch1M, as seedPages's SQL expressions.
const (
	keyword1MTitle = `'Page ' || CAST(seq.i AS TEXT) || CASE WHEN seq.i % 100 = 0 THEN ' quarterly report' ELSE '' END`
	keyword1MBlock = `'Meeting notes on the quarterly roadmap, item ' || CAST(seq.j AS TEXT) || CASE WHEN seq.j % 10 = 0 THEN ' 项目会议纪要' ELSE ' budget' END || ' tok' || CAST((seq.j * 7919) % 1000003 AS TEXT)`
)

// keyword1MBlocks is how many blocks BenchmarkKeywordSearch1M seeds: a million, or
// QUIRE_BENCH_BLOCKS.
func keyword1MBlocks(b *testing.B) int {
	v := os.Getenv("QUIRE_BENCH_BLOCKS")
	if v == "" {
		return 1000000
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		b.Fatal(err)
	}
	return n
}
