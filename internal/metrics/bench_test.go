package metrics

import (
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// BenchmarkObserveRequest is what counting costs every request: the series lookup, the
// counter and the histogram, from GOMAXPROCS goroutines on one route as under load.
func BenchmarkObserveRequest(b *testing.B) {
	m := New(service.New(testdb.SQLite(b), service.Options{}), slog.New(slog.NewTextHandler(io.Discard, nil)), "test")
	b.ResetTimer()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.ObserveRequest("GET /v2/pages/{page_id}", 200, 830*time.Microsecond)
		}
	})
}
