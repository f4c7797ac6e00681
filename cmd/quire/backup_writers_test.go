package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBackup_WritersRunning backs up each engine's store while four clients keep creating
// pages (each a title and three paragraphs, one transaction), restores the archive and checks
// that every page acknowledged before the backup began is there with all its blocks and is
// found by keyword search, and that every page there is whole and was acknowledged.
func TestBackup_WritersRunning(t *testing.T) {
	for name, storeFlags := range engines {
		t.Run(name, func(t *testing.T) {
			srcArgs := storeFlags(t)
			src := openLive(t, srcArgs)
			token := src.seed(t)
			var mu sync.Mutex
			var acked []string
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						tag := fmt.Sprintf("writer%dx%dz", w, i) // z: no tag is a prefix of another
						code, page := src.call(t, "POST", "/v2/pages", token, map[string]any{
							"properties": map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": "w " + tag}}}},
							"markdown":   "first " + tag + "\n\nsecond\n\nthird\n"})
						if code != 200 {
							t.Errorf("create page %s: %d %v", tag, code, page)
							return
						}
						mu.Lock()
						acked = append(acked, page["id"].(string))
						mu.Unlock()
					}
				}()
			}
			waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 20 })
			mu.Lock()
			before := slices.Clone(acked)
			mu.Unlock()
			archive := filepath.Join(t.TempDir(), "live.tar.gz")
			mustQuire(t, append([]string{"backup", "--out", archive}, srcArgs...)...)
			mu.Lock()
			during := len(acked) - len(before)
			mu.Unlock()
			close(stop)
			wg.Wait()
			t.Logf("%d pages acknowledged before the backup began, %d while it ran, %d in all", len(before), during, len(acked))

			dstArgs := storeFlags(t)
			mustQuire(t, append([]string{"restore", "--in", archive}, dstArgs...)...)
			dst := openLive(t, dstArgs)
			for _, id := range before {
				if n := len(results(dst.ok(t, "GET", "/v2/blocks/"+id+"/children", token, nil))); n != 3 {
					t.Errorf("page %s, acknowledged before the backup: %d blocks restored, want 3", id, n)
				}
			}
			for _, id := range before[:5] {
				title := dst.ok(t, "GET", "/v2/pages/"+id, token, nil)["properties"].(map[string]any)["title"].(map[string]any)
				tag := strings.TrimPrefix(title["title"].([]any)[0].(map[string]any)["plain_text"].(string), "w ")
				if got := results(dst.ok(t, "POST", "/v2/search", token, map[string]any{"query": "first " + tag})); !slices.Equal(got, []string{id}) {
					t.Errorf("search for the text of page %s finds %v", id, got)
				}
			}
			top := dst.ok(t, "GET", "/v2/workspace/pages/top_level?page_size=100", token, nil)
			checked := 0
			for top != nil {
				for _, id := range results(top) {
					md := dst.ok(t, "GET", "/v2/pages/"+id+"/content/markdown", token, nil)
					if !strings.Contains(fmt.Sprint(md), "first writer") {
						continue // a page of the demo
					}
					checked++
					if n := len(results(dst.ok(t, "GET", "/v2/blocks/"+id+"/children", token, nil))); n != 3 || !slices.Contains(acked, id) {
						t.Errorf("restored page %s: %d blocks, acknowledged %v; want 3 blocks of an acknowledged write", id, n, slices.Contains(acked, id))
					}
				}
				if top["has_more"] != true {
					break
				}
				top = dst.ok(t, "GET", "/v2/workspace/pages/top_level?page_size=100&start_cursor="+top["next_cursor"].(string), token, nil)
			}
			if checked < len(before) {
				t.Errorf("the top level lists %d of the writers' pages, fewer than the %d acknowledged before the backup", checked, len(before))
			}
		})
	}
}

// waitFor polls cond for up to 20 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("timed out")
}
