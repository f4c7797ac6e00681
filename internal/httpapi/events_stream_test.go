package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// sseMessage is one message of an event stream, or a comment (heartbeat).
type sseMessage struct {
	id, event, comment string
	data               map[string]any
}

// openStream opens GET /v2/events/stream on base and delivers its messages on the channel
// until the test ends. headers are name, value pairs.
func openStream(t *testing.T, base, token, query string, headers ...string) <-chan sseMessage {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v2/events/stream?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	out := make(chan sseMessage, 1000)
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); res.Body.Close(); <-done })
	go func() {
		defer close(done)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		var m sseMessage
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if m.event != "" || m.comment != "" {
					out <- m
				}
				m = sseMessage{}
			case strings.HasPrefix(line, ":"):
				m.comment = strings.TrimSpace(line[1:])
			case strings.HasPrefix(line, "id: "):
				m.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				m.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(line[6:]), &m.data)
			}
		}
	}()
	return out
}

// nextEvent waits up to within for the stream's next event, skipping heartbeats.
func nextEvent(t *testing.T, ch <-chan sseMessage, within time.Duration) sseMessage {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m := <-ch:
			if m.event != "" {
				return m
			}
		case <-deadline:
			t.Fatalf("no event within %s", within)
		}
	}
}

func TestEvents_Stream(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		was := eventHeartbeat
		eventHeartbeat = 50 * time.Millisecond
		t.Cleanup(func() { eventHeartbeat = was })
		e := newEnv(t, st)
		e.mkPage(t, e.full, wsParent, "before") // a stream without a cursor starts after it
		live := openStream(t, e.srv.URL, e.full, "")
		first := e.mkPage(t, e.full, wsParent, "first")
		m := nextEvent(t, live, time.Second)
		if m.event != "page.created" || m.data["entity"].(map[string]any)["id"] != first || m.data["type"] != m.event {
			t.Fatalf("first message = %+v", m)
		}
		// Heartbeats keep an idle stream open.
		select {
		case h := <-live:
			if h.comment != "heartbeat" {
				t.Fatalf("idle stream sent %+v, want a heartbeat", h)
			}
		case <-time.After(time.Second):
			t.Fatal("no heartbeat")
		}
		// A reconnecting EventSource resumes after Last-Event-ID, with what it missed.
		second := e.mkPage(t, e.full, wsParent, "second")
		again := openStream(t, e.srv.URL, e.full, "", "Last-Event-ID", m.id)
		if m := nextEvent(t, again, time.Second); m.data["entity"].(map[string]any)["id"] != second {
			t.Fatalf("resumed stream's first event = %+v, want page.created of the second page", m)
		}
		// Filters apply to the stream as to the list.
		pages := openStream(t, e.srv.URL, e.full, "types=page.content_updated")
		e.mkPage(t, e.full, wsParent, "third")
		e.appendKids(t, second, para("x"))
		if m := nextEvent(t, pages, time.Second); m.event != "page.content_updated" {
			t.Fatalf("filtered stream sent %+v", m)
		}
		// A stream outlives the server's read timeout, which is for reading requests.
		short := httptest.NewUnstartedServer(e.srv.Config.Handler)
		short.Config.ReadTimeout = 100 * time.Millisecond
		short.Start()
		t.Cleanup(short.Close)
		held := openStream(t, short.URL, e.full, "types=page.created")
		time.Sleep(500 * time.Millisecond)
		late := e.mkPage(t, e.full, wsParent, "late")
		if m := nextEvent(t, held, time.Second); m.data["entity"].(map[string]any)["id"] != late {
			t.Fatalf("stream past the read timeout sent %+v", m)
		}
	})
}

// secondServer is another server on the store at dsn, as another machine would run it.
func secondServer(t *testing.T, dsn string) *httptest.Server {
	st, err := store.Open(context.Background(), store.Config{DatabaseURL: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := service.New(st, service.Options{})
	srv := httptest.NewServer(newServer(Config{Service: svc, BaseURL: "http://example.invalid"}))
	t.Cleanup(srv.Close)
	return srv
}

// TestEvents_TwoServers runs 16 writers through two servers sharing one PostgreSQL database
// while a reader walks the feed with cursors on one of them and a stream is held on the other:
// every write's event is seen exactly once, by both.
func TestEvents_TwoServers(t *testing.T) {
	dsn := testdb.PostgresURL(t)
	st, err := store.Open(context.Background(), store.Config{DatabaseURL: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := newEnv(t, st)
	b := secondServer(t, dsn)

	// A write through A reaches a stream held on B within a second.
	stream := openStream(t, b.URL, a.full, "")
	p := a.mkPage(t, a.full, wsParent, "across")
	if m := nextEvent(t, stream, time.Second); m.data["entity"].(map[string]any)["id"] != p {
		t.Fatalf("B's stream sent %+v", m)
	}

	// The reader walks while they write, from after the first page: its cursor is taken before
	// any writer starts, or the events of the first writes would be read and not counted.
	_, cursor := a.feed(t, a.full, "", "", 100)
	const writers, each = 16, 12
	created := make(chan string, writers*each)
	var wg sync.WaitGroup
	for w := range writers {
		base := a.srv.URL
		if w%2 == 1 {
			base = b.URL
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id, err := postPage(base, a.full, fmt.Sprint(w, "-", i))
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				created <- id
			}
		}()
	}
	seen := map[string]int{}
	stop := make(chan struct{})
	go func() { wg.Wait(); close(stop) }()
	for finished := false; ; {
		select {
		case <-stop:
			finished = true
		default:
		}
		var evs []map[string]any
		evs, cursor = a.feed(t, a.full, cursor, "", 7)
		for _, ev := range evs {
			seen[ev["entity"].(map[string]any)["id"].(string)]++
		}
		if finished {
			break
		}
	}
	close(created)
	streamed := map[string]int{}
	for len(created) > 0 || len(streamed) < writers*each {
		m := nextEvent(t, stream, 5*time.Second)
		streamed[m.data["entity"].(map[string]any)["id"].(string)]++
		if len(streamed) == writers*each {
			break
		}
	}
	n := 0
	for id := range created {
		n++
		if seen[id] != 1 || streamed[id] != 1 {
			t.Errorf("page %s: %d times in the walked feed, %d in the stream; want once", id, seen[id], streamed[id])
		}
	}
	if n != writers*each || len(seen) != n {
		t.Fatalf("%d pages written, %d distinct events walked", n, len(seen))
	}
}

// postPage creates a page at the workspace's top level through the server at base.
func postPage(base, token, title string) (string, error) {
	body, _ := json.Marshal(map[string]any{"parent": wsParent, "properties": titleOf(title)})
	req, err := http.NewRequest(http.MethodPost, base+"/v2/pages", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var page struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil || res.StatusCode != 200 {
		return "", fmt.Errorf("POST /v2/pages: %d %v", res.StatusCode, err)
	}
	return page.ID, nil
}
