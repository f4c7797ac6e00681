package service_test

import (
	"os"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/service"
)

// BenchmarkKeywordSearchProbe compares, on PostgreSQL, the two ways a search for a term of three
// characters or more begins its content tier, in the same run over the corpus of
// BenchmarkKeywordSearch1M (QUIRE_BENCH_BLOCKS, 100,000 blocks unless set): "probe" checks the
// next 50 nodes one by one first, as every such search did before the estimate
// (search.Tuning.Probe = 50); "estimate" is production's choice, which skips the probe when a
// sample says the term is rare. pg-cpu-ms is the server's CPU per search. Run with
//
//	go test ./internal/service -run '^$' -bench KeywordSearchProbe -benchtime 20x
func BenchmarkKeywordSearchProbe(b *testing.B) {
	if os.Getenv("QUIRE_BENCH_BLOCKS") == "" {
		b.Setenv("QUIRE_BENCH_BLOCKS", "100000")
	}
	st, _, pgURL := openBenchStore(b, "postgres")
	c := seedPages(b, st, service.Options{}, keyword1MBlocks(b)/100, 100, keyword1MTitle, keyword1MBlock)
	for _, tc := range []struct{ name, query string }{
		{"selective", "tok424242"},
		{"two-terms", "item 12345"},
		{"common", "quarterly"},
		{"cjk", "会议纪要"},
		{"absent", "zebra"},
	} {
		for _, plan := range []struct {
			name  string
			probe int
		}{{"probe", 50}, {"estimate", 0}} {
			b.Run(tc.name+"/"+plan.name, func(b *testing.B) {
				q := search.Query{Workspace: c.p.WorkspaceID(), Terms: strings.Fields(tc.query), Limit: 21, Tuning: search.Tuning{Probe: plan.probe}}
				var n int
				timedServer(b, pgURL, func() {
					res, _, err := st.Search(ctx, q)
					if err != nil {
						b.Fatal(err)
					}
					n = len(res)
				})
				b.ReportMetric(float64(n), "results")
			})
		}
	}
}
