package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/testdb"
)

// TestEventsCrash: writers create pages and append to them while the server is killed with
// SIGKILL at a random moment, round after round; then every write answered 2xx has its event
// in the feed exactly once, each writer's events come in the order it made the writes (each
// waited for the previous answer, so that is their commit order), a write cut off by the kill
// has at most one, and every event's page exists. Short: 2 rounds per engine; QUIRE_LONG=1: 20.
func TestEventsCrash(t *testing.T) {
	rounds := 2
	if os.Getenv("QUIRE_LONG") == "1" {
		rounds = 20
	}
	bin := quireBinary(t)
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			args := []string{"--data", t.TempDir()}
			if engine == "postgres" {
				args = append(args, "--database-url", testdb.PostgresURL(t))
			}
			ws := runJSON(t, append([]string{"workspace", "create", "--name", "Crash", "--create"}, args...)...)["id"].(string)
			user := runJSON(t, append([]string{"user", "create", "--workspace", ws, "--name", "C", "--email", "c@example.com"}, args...)...)["id"].(string)
			token := runJSON(t, append([]string{"token", "create", "--workspace", ws, "--owner", user, "--name", "crash",
				"--scopes", "all", "--workspace-scoped"}, args...)...)["token"].(string)
			writers := make([]*eventWriter, 4)
			for i := range writers {
				writers[i] = &eventWriter{rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))}
			}
			for range rounds {
				p := startProcess(t, bin, args)
				var wg sync.WaitGroup
				for _, w := range writers {
					w.c = newClient(p.base, token)
					wg.Add(1)
					go func() { defer wg.Done(); w.run(t) }()
				}
				time.Sleep(300*time.Millisecond + time.Duration(rand.Int64N(int64(time.Second))))
				p.kill(t)
				wg.Wait()
			}
			p := startProcess(t, bin, args)
			defer p.stop(t)
			checkEventFeed(t, newClient(p.base, token), writers)
		})
	}
}

// eventWriter makes writes one after the other until the server dies under it.
type eventWriter struct {
	c     *client
	rng   *rand.Rand
	pages []string
	acked []string       // "type entity", in the order answered
	cuts  map[int]string // the appends that got no answer (by len(acked) then), as "type entity"
}

func (w *eventWriter) run(t *testing.T) {
	for {
		var r *reply
		var err error
		want := ""
		if len(w.pages) == 0 || w.rng.IntN(3) == 0 {
			r, err = w.c.call("POST", "/v2/pages", map[string]any{"parent": map[string]any{"type": "workspace", "workspace": true},
				"properties": map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": "p"}}}}}, "")
		} else {
			page := w.pages[w.rng.IntN(len(w.pages))]
			want = "page.content_updated " + page
			r, err = w.c.call("PATCH", "/v2/blocks/"+page+"/children", map[string]any{"children": []any{
				map[string]any{"paragraph": map[string]any{"rich_text": []any{map[string]any{"text": map[string]any{"content": "x"}}}}}}}, "")
		}
		if errors.Is(err, errNoAnswer) {
			if w.cuts == nil {
				w.cuts = map[int]string{}
			}
			w.cuts[len(w.acked)] = want
			return
		}
		if err != nil || r.status != 200 {
			t.Errorf("write: %v %+v", err, r)
			return
		}
		if want == "" {
			id := r.obj["id"].(string)
			w.pages = append(w.pages, id)
			want = "page.created " + id
		} else {
			// The block's id makes each append's line unique: an append cut off by the kill
			// and the next one to the same page are then told apart.
			want += " " + r.obj["results"].([]any)[0].(map[string]any)["id"].(string)
		}
		w.acked = append(w.acked, want)
	}
}

func checkEventFeed(t *testing.T, c *client, writers []*eventWriter) {
	var feed []string
	ids, entities := map[string]bool{}, map[string]bool{}
	cursor := ""
	for {
		r, err := c.call("GET", "/v2/events?page_size=100&start_cursor="+url.QueryEscape(cursor), nil, "")
		if err != nil || r.status != 200 {
			t.Fatalf("GET /v2/events: %v %+v", err, r)
		}
		for _, v := range r.obj["results"].([]any) {
			ev := v.(map[string]any)
			if ids[ev["id"].(string)] {
				t.Fatalf("event %s twice in the feed", ev["id"])
			}
			ids[ev["id"].(string)] = true
			entity := ev["entity"].(map[string]any)["id"].(string)
			line := fmt.Sprint(ev["type"], " ", entity)
			if blocks, ok := ev["data"].(map[string]any)["block_ids"].([]any); ok {
				line += " " + blocks[0].(string)
			}
			feed, entities[entity] = append(feed, line), true
		}
		cursor = r.obj["next_cursor"].(string)
		if r.obj["has_more"] != true {
			break
		}
	}
	// Each writer's acknowledged writes are a subsequence of the feed, in order; between them
	// only other writers' events and, last, its own cut-off write.
	mine := map[string]*eventWriter{}
	for _, w := range writers {
		for _, p := range w.pages {
			mine[p] = w
		}
	}
	next := map[*eventWriter]int{}
	total := 0
	for _, line := range feed {
		var typ, id string
		fmt.Sscan(line, &typ, &id)
		w := mine[id]
		if w == nil {
			continue // a page created by a write cut off by the kill
		}
		switch i := next[w]; {
		case i < len(w.acked) && w.acked[i] == line:
			next[w]++
			total++
		case w.cuts[i] != "" && strings.HasPrefix(line, w.cuts[i]+" "):
			delete(w.cuts, i) // committed before the kill, answer lost: once at most
		default:
			t.Fatalf("feed event %q out of place: writer's next acknowledged write is #%d of %d; acked %v, cut %v", line, i, len(w.acked), w.acked, w.cuts)
		}
	}
	for _, w := range writers {
		if next[w] != len(w.acked) {
			t.Fatalf("a writer's acknowledged write #%d (%s) has no event", next[w], w.acked[next[w]])
		}
	}
	for p := range entities {
		if r, err := c.call("GET", "/v2/pages/"+p, nil, ""); err != nil || r.status != 200 {
			t.Fatalf("page %s of the feed: %v %+v", p, err, r)
		}
	}
	t.Logf("%d acknowledged writes, each once in a feed of %d events", total, len(feed))
}
