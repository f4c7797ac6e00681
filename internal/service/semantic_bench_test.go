package service_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// BenchmarkSemanticSearch1M is one semantic query (20 results, the vector cache warm) over the
// store of the 1M-block load run: 1,000 pages of 1,000 blocks (the text of
// BenchmarkKeywordSearch1M's blocks) and a database of 10,000 records, where only the records
// and ten pages have vectors (10,320 chunks; random ones: the timing does not depend on what they
// mean, and the query still goes the whole way, from the built-in model to the rendered records).
// stream is the same query with the cache off. QUIRE_BENCH_BLOCKS sets another count of blocks.
// The shape matters more than the count: with pages of 100 blocks (1M blocks all the same)
// PostgreSQL's statistics put far fewer entries under each node, it planned the keyword signal
// (TermHits) for a few thousand of them, and the slow plan of the load run did not show.
//
//	go test ./internal/service -run '^$' -bench SemanticSearch1M -benchtime 20x -timeout 60m
//	QUIRE_BENCH_BLOCKS=100000 go test ./internal/service -run '^$' -bench SemanticSearch1M -benchtime 20x  # quicker
func BenchmarkSemanticSearch1M(b *testing.B) {
	blocks := 1000000
	if v := os.Getenv("QUIRE_BENCH_BLOCKS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		blocks = n
	}
	const perPage, records, embeddedPages, pageChunks = 1000, 10000, 10, 32
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			st := e.open(b)
			start := time.Now()
			c := seedPages(b, st, service.Options{Embedder: embed.Builtin()}, blocks/perPage, perPage,
				`'Page ' || CAST(seq.i AS TEXT) || CASE WHEN seq.i % 100 = 0 THEN ' quarterly report' ELSE '' END`,
				`'Meeting notes on the quarterly roadmap, item ' || CAST(seq.j AS TEXT) || CASE WHEN seq.j % 10 = 0 THEN ' 项目会议纪要' ELSE ' budget' END || ' tok' || CAST((seq.j * 7919) % 1000003 AS TEXT)`)
			db := seedRecords(b, st, c.svc, c.p, records)
			r := rand.New(rand.NewPCG(7, 8))
			for i := range records {
				saveRandomVectors(b, st, r, c.p.WorkspaceID(), db.ID[len(db.ID)-8:]+fmt.Sprintf("-%04x-4000-8000-%012x", i%65536, i), 1)
			}
			for i := range embeddedPages {
				saveRandomVectors(b, st, r, c.p.WorkspaceID(), fmt.Sprintf("bp%d", i), pageChunks)
			}
			if st.Engine() == store.Postgres {
				if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.Exec(ctx, "ANALYZE") }); err != nil {
					b.Fatal(err)
				}
			}
			b.Logf("%s: seeded %d blocks and %d records in %s", e.name, blocks, records, time.Since(start).Round(time.Second))
			stream := service.New(st, service.Options{Embedder: embed.Builtin(), VectorCacheBytes: -1})
			for _, v := range []struct {
				name string
				svc  *service.Service
			}{{"cache", c.svc}, {"stream", stream}} {
				b.Run(v.name, func(b *testing.B) {
					q := service.SemanticRequest{Query: "notes from the quarterly budget review", PageSize: 20}
					if _, err := v.svc.SemanticSearch(ctx, c.p, q); err != nil { // loads the vector cache
						b.Fatal(err)
					}
					timedCPU(b, func() {
						hits, err := v.svc.SemanticSearch(ctx, c.p, q)
						if err != nil || len(hits.Items) != q.PageSize {
							b.Fatalf("%d hits, %v", len(hits.Items), err)
						}
					})
				})
			}
		})
	}
}

// saveRandomVectors stores chunks random unit vectors of the built-in model's size for node id,
// as the indexer would.
func saveRandomVectors(b *testing.B, st *store.Store, r *rand.Rand, ws, id string, chunks int) {
	b.Helper()
	vecs := make([]store.EmbedChunk, chunks)
	for k := range vecs {
		v := make([]float32, 512)
		var n float64
		for d := range v {
			v[d] = float32(r.NormFloat64())
			n += float64(v[d]) * float64(v[d])
		}
		for d := range v {
			v[d] /= float32(math.Sqrt(n))
		}
		vecs[k] = store.EmbedChunk{Vector: v, Text: fmt.Sprintf("chunk %d", k)}
	}
	if err := st.SaveEmbeddings(ctx, store.EmbedJob{NodeID: id}, ws, embed.BuiltinID, vecs); err != nil {
		b.Fatal(err)
	}
}
