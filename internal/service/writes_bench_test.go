package service_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// BenchmarkSeedBatch measures issue 15's seeding row: POST …/mutations with 100 creates of
// records with the ten properties of BenchmarkDatabases and a person, as quire-bench's seeding
// names one (target: 100,000 records, 1,000 batches, in ≤ 20 s over HTTP). Each operation decodes the body as the handler does, then
// applies it, on a database that grows by 100 records an operation from 1,000 seeded the same
// way first. c=1 applies one batch at a time (p50, CPU per batch); c=4 four at a time, as the
// issue's seeding does (concurrently's figures, and the wall time of 1,000 batches at that pace:
// s-per-100k).
func BenchmarkSeedBatch(b *testing.B) {
	for _, e := range engines {
		for _, conc := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/c=%d", e.name, conc), func(b *testing.B) {
				st, _, pgURL := openBenchStore(b, e.name)
				svc, p := caller(b, st)
				seedSchema := strings.TrimSuffix(benchSchema(), "}") + `,"owner":{"people":{}}}`
				schema, err := properties.DecodeSchema(json.RawMessage(seedSchema), "properties")
				if err != nil {
					b.Fatal(err)
				}
				db, err := svc.CreateDatabase(ctx, p, service.NewDatabase{Parent: service.Parent{Type: quire.ParentWorkspace},
					Title: blocks.Plain("Seed"), Schema: schema})
				if err != nil {
					b.Fatal(err)
				}
				var next atomic.Int64
				apply := func() {
					ops, err := service.DecodeMutations(seedBody(int(next.Add(1)), p.Token.OwnerID))
					if err != nil {
						b.Error(err)
						return
					}
					if out, err := svc.MutateRecords(ctx, p, db.ID, ops); err != nil || len(out) != 100 {
						b.Errorf("mutations: %d records, %v", len(out), err)
					}
				}
				for range 10 {
					apply()
				}
				if conc == 1 {
					timedServer(b, pgURL, apply)
					return
				}
				per := concurrently(b, conc, pgURL, func(int) { apply() })
				b.ReportMetric(per.Seconds()*1000, "s-per-100k")
			})
		}
	}
}

// seedBody is the mutations body of seeding batch n: 100 creates, every property set, each
// naming person owner.
func seedBody(n int, owner string) []byte {
	text := func(s string) []any { return []any{map[string]any{"text": map[string]any{"content": s}}} }
	ops := make([]any, 100)
	for j := range ops {
		i := n*100 + j
		var words []string
		for k := range 12 {
			words = append(words, benchWords[(i*7+k*31)%len(benchWords)])
		}
		ops[j] = map[string]any{"op": "create", "properties": map[string]any{
			"title": map[string]any{"title": text(fmt.Sprintf("Record %d", i))},
			"text":  map[string]any{"rich_text": text(strings.Join(words, " "))},
			"num":   map[string]any{"number": (i * 7919) % 1000000},
			"sel":   map[string]any{"select": map[string]any{"name": fmt.Sprintf("opt%d", i%20)}},
			"tags":  map[string]any{"multi_select": []any{map[string]any{"name": fmt.Sprintf("tag%d", i%10)}, map[string]any{"name": fmt.Sprintf("tag%d", (i/10)%10)}}},
			"done":  map[string]any{"checkbox": i%2 == 1},
			"date":  map[string]any{"date": map[string]any{"start": fmt.Sprintf("2026-%02d-%02d", 1+i%12, 1+i%28)}},
			"stage": map[string]any{"status": map[string]any{"name": []string{"Not started", "In progress", "Done"}[i%3]}},
			"site":  map[string]any{"url": fmt.Sprintf("https://example.com/%d", i)},
			"mail":  map[string]any{"email": fmt.Sprintf("r%d@example.com", i)},
			"owner": map[string]any{"people": []any{map[string]any{"object": "user", "id": owner}}},
		}}
	}
	raw, _ := json.Marshal(map[string]any{"mutations": ops})
	return raw
}

// BenchmarkAppend100Concurrent measures issue 15's append row at c=16: sixteen callers each
// appending 100 paragraphs, to one page or each to a page of its own (what the page's lock
// costs them): concurrently's figures.
func BenchmarkAppend100Concurrent(b *testing.B) {
	for _, e := range engines {
		for _, shared := range []bool{true, false} {
			name := map[bool]string{true: "one-page", false: "own-pages"}[shared]
			b.Run(e.name+"/c=16/"+name, func(b *testing.B) {
				st, _, pgURL := openBenchStore(b, e.name)
				svc, p := caller(b, st)
				batch := paragraphs(100, "The quick brown fox jumps over the lazy dog.")
				pages := make([]string, 16)
				for i := range pages {
					if i == 0 || !shared {
						pages[i] = newPage(b, svc, p).ID
					} else {
						pages[i] = pages[0]
					}
				}
				appendTo := func(w int) {
					if _, _, err := svc.AppendChildren(ctx, p, pages[w], batch, service.Placement{}); err != nil {
						b.Error(err)
					}
				}
				for w := range 32 { // warm-up, as BenchmarkAppend100's
					appendTo(w % 16)
				}
				concurrently(b, 16, pgURL, appendTo)
			})
		}
	}
}

// concurrently runs op b.N times from workers goroutines at once (op is given its worker's
// number) and reports the median wall time of one op (p50-ms), the wall time of the whole run
// per op (ms-per-op, which it returns), and the CPU per op of this process (cpu-ms) and of the
// PostgreSQL server at pgURL when there is one (pg-cpu-ms).
func concurrently(b *testing.B, workers int, pgURL string, op func(w int)) time.Duration {
	b.Helper()
	var mu sync.Mutex
	took := make([]time.Duration, 0, b.N)
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	pg, pgOK := serverCPU(pgURL)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				t := time.Now()
				op(w)
				mu.Lock()
				took = append(took, time.Since(t))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	per := time.Since(start) / time.Duration(b.N)
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(per.Microseconds())/1000, "ms-per-op")
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms")
	if after, ok := serverCPU(pgURL); pgOK && ok {
		b.ReportMetric(float64((after-pg).Microseconds())/1000/float64(b.N), "pg-cpu-ms")
	}
	return per
}
