//go:build linux

package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRequestPath measures the two reads of issue 15's table through the server's
// ServeHTTP, without network or client: GET /v2/pages/{id} of a page under a top-level page, and
// the first page of 100 children of a page of 10,000 paragraphs, on a SQLite store. cpu-ms/op is
// the process's CPU time (getrusage) per request, steadier than wall time on a shared machine.
func BenchmarkRequestPath(b *testing.B) {
	e := newBenchEnv(b)
	call := func(method, path string, body any) []byte {
		var rd *bytes.Reader
		if body != nil {
			raw, _ := json.Marshal(body)
			rd = bytes.NewReader(raw)
		} else {
			rd = bytes.NewReader(nil)
		}
		req := httptest.NewRequest(method, path, rd)
		req.Header.Set("Authorization", e.header)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		e.srv.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
		return w.Body.Bytes()
	}
	id := func(raw []byte) string {
		var v struct{ ID string }
		_ = json.Unmarshal(raw, &v)
		return v.ID
	}
	title := func(s string) map[string]any {
		return map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": s}}}}
	}
	top := id(call("POST", "/v2/pages", map[string]any{"properties": title("Top")}))
	page := id(call("POST", "/v2/pages", map[string]any{"parent": map[string]any{"page_id": top}, "properties": title("Page")}))
	for i := 0; i < 100; i++ {
		children := make([]any, 100)
		for j := range children {
			children[j] = map[string]any{"type": "paragraph", "paragraph": map[string]any{"rich_text": []any{
				map[string]any{"text": map[string]any{"content": fmt.Sprintf("Paragraph %d of a long page, with a dozen words in it.", i*100+j)}}}}}
		}
		call("PATCH", "/v2/blocks/"+page+"/children", map[string]any{"children": children})
	}
	for _, c := range []struct{ name, path string }{
		{"page", "/v2/pages/" + page},
		{"children", "/v2/blocks/" + page + "/children?page_size=100"},
	} {
		b.Run(c.name, func(b *testing.B) {
			call("GET", c.path, nil)
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				call("GET", c.path, nil)
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
