package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/quire-dev/quire/internal/store"
)

// waitReady polls url until it answers 200 (at most 20 seconds, or until died is closed).
func waitReady(ctx context.Context, url, token string, died <-chan struct{}) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(20 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		_, err := fetch(ctx, client, url, token)
		if err == nil {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-died:
			return last
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("no 200 from %s within 20 s: %w", url, last)
}

// fetch makes one authenticated GET and returns the body of a 200 answer.
func fetch(ctx context.Context, client *http.Client, url, token string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", res.StatusCode, body)
	}
	return body, nil
}

// waitIndexed waits until the server's indexer has embedded every queued node (the queue in
// the store is empty), printing progress every 30 seconds, each line's seconds counted from
// start (a phase's first write, as its "queue empty" line counts them). It gives up when the
// server ends.
func waitIndexed(ctx context.Context, st *store.Store, died <-chan struct{}, stderr io.Writer, start time.Time) error {
	last := time.Now()
	for {
		n, err := st.EmbedQueueLength(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if time.Since(last) >= 30*time.Second {
			chunks, _ := st.EmbeddingCount(ctx)
			fmt.Fprintf(stderr, "  indexing: %d nodes queued, %d chunks embedded, %.0f s\n", n, chunks, time.Since(start).Seconds())
			last = time.Now()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-died:
			return fmt.Errorf("quire serve ended while %d nodes were queued for embedding", n)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// collectCursors walks the children of up to 20 seeded pages, 100 at a time, and returns the
// requests for their later pages (start_cursor values), so that the children endpoint reads
// from anywhere in a page, not only its start.
func collectCursors(ctx context.Context, base string, sd *seeded) ([]request, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	var out []request
	for _, p := range sample(rand.New(rand.NewPCG(1, 1)), sd.Pages, 20) {
		cursor := ""
		for range blocksPerPage / 100 {
			path := "/v2/blocks/" + p + "/children?page_size=100"
			if cursor != "" {
				path += "&start_cursor=" + url.QueryEscape(cursor)
				out = append(out, request{"GET", path, ""})
			}
			body, err := fetch(ctx, client, base+path, sd.Token)
			if err != nil {
				return nil, err
			}
			var list struct {
				HasMore    bool    `json:"has_more"`
				NextCursor *string `json:"next_cursor"`
			}
			if err := json.Unmarshal(body, &list); err != nil {
				return nil, err
			}
			if !list.HasMore || list.NextCursor == nil {
				break
			}
			cursor = *list.NextCursor
		}
	}
	return out, nil
}
