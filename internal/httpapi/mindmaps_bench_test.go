package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// BenchmarkMindMapEdit is one edit (PATCH /v2/mind-maps/:id with one edit) of a mind map of
// 10,000 nodes, on both engines: through real HTTP on loopback ("http"; the answer, the whole
// tree, is read to the end but not decoded), and by calling the server's handler with a
// recorder ("handler": the server's own time, no network, no client). It reports the median and 95th percentile latency (p50-ms,
// p95-ms) beside the mean (ns/op), and the CPU time of the whole test process (server, client
// and SQLite; not PostgreSQL's) per request (cpu-ms/op), which depends less on how busy the
// machine is. "get" is GET of the same map, for comparison.
func BenchmarkMindMapEdit(b *testing.B) {
	for _, engine := range []struct {
		name string
		open func(testing.TB) *store.Store
	}{{"sqlite", testdb.SQLite}, {"postgres", testdb.Postgres}} {
		b.Run(engine.name, func(b *testing.B) {
			e := newEnv(b, engine.open(b))
			r := e.mkMindMap(b, e.full, map[string]any{"parent": wsParent, "title": "Big", "root": bigTree()})
			mapID := r.body["id"].(string)
			ids := nodeIDs(rootOf(r))
			client := &http.Client{}
			b.Cleanup(client.CloseIdleConnections)

			for _, kind := range []struct {
				name string
				edit func(i int) any // nil for the GET
			}{
				{"update", func(i int) any {
					return map[string]any{"op": "update", "node_id": ids[fmt.Sprintf("n%d", i%10000)], "text": fmt.Sprintf("edit %d", i)}
				}},
				{"move", func(i int) any {
					return map[string]any{"op": "move", "node_id": ids["n2"], "parent_id": ids[fmt.Sprintf("n%d", 1+101*(i%99))]}
				}},
				{"add_or_delete", func(i int) any {
					if i%2 == 0 {
						return map[string]any{"op": "delete", "node_id": ids["n3"]}
					}
					return map[string]any{"op": "add", "parent_id": ids["n1"], "node": map[string]any{"id": ids["n3"], "text": "n3"}}
				}},
				{"get", nil},
			} {
				for _, via := range []string{"http", "handler"} {
					b.Run(kind.name+"/"+via, func(b *testing.B) {
						var lat []time.Duration
						cpu0 := processCPU()
						for i := 0; b.Loop(); i++ {
							var req *http.Request
							if kind.edit == nil {
								req, _ = http.NewRequest(http.MethodGet, e.srv.URL+"/v2/mind-maps/"+mapID, nil)
							} else {
								buf, _ := json.Marshal(map[string]any{"edits": []any{kind.edit(i)}})
								req, _ = http.NewRequest(http.MethodPatch, e.srv.URL+"/v2/mind-maps/"+mapID, bytes.NewReader(buf))
								req.Header.Set("Content-Type", "application/json")
							}
							req.Header.Set("Authorization", "Bearer "+e.full)
							start := time.Now()
							status := 0
							if via == "handler" {
								w := httptest.NewRecorder()
								e.srv.Config.Handler.ServeHTTP(w, req)
								status = w.Code
							} else {
								res, err := client.Do(req)
								if err != nil {
									b.Fatal(err)
								}
								_, _ = io.Copy(io.Discard, res.Body)
								res.Body.Close()
								status = res.StatusCode
							}
							lat = append(lat, time.Since(start))
							if status != http.StatusOK {
								b.Fatalf("%s: status %d", kind.name, status)
							}
						}
						cpu := processCPU() - cpu0
						if kind.name == "add_or_delete" && len(lat)%2 == 1 { // put n3 back
							buf, _ := json.Marshal(map[string]any{"edits": []any{kind.edit(1)}})
							if r := e.do(http.MethodPatch, "/v2/mind-maps/"+mapID, e.full, buf); r.status != 200 {
								b.Fatalf("restore n3: %d %s", r.status, r.raw)
							}
						}
						slices.Sort(lat)
						b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
						b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
						b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(lat)), "cpu-ms/op")
					})
				}
			}
		})
	}
}

// processCPU is the user and system CPU time the process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
