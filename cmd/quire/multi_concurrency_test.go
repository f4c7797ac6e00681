package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// childTitles lists the titles of the child pages of page id, in order.
func (c *cluster) childTitles(t *testing.T, s *server, id string) []string {
	var out []string
	for _, b := range dig(s.ok(t, "GET", "/v2/blocks/"+id+"/children?page_size=100", c.token, nil).body, "results").([]any) {
		if str(b, "type") == "child_page" {
			out = append(out, str(b, "child_page", "title"))
		}
	}
	return out
}

// testIdempotency sends one Idempotency-Key to both servers, one after the other and at once:
// the key lives in the database, so there is one effect and one answer.
func (c *cluster) testIdempotency(t *testing.T) {
	a, b, tok := c.a, c.b, c.token
	parent := str(a.ok(t, "POST", "/v2/pages", tok, titleBody("", "Idempotency")).body, "id")
	body := func(title string) string {
		raw, _ := json.Marshal(titleBody(parent, title))
		return string(raw)
	}

	first := a.ok(t, "POST", "/v2/pages", tok, body("once"), "Idempotency-Key", "seq-1")
	again := b.ok(t, "POST", "/v2/pages", tok, body("once"), "Idempotency-Key", "seq-1")
	if !bytes.Equal(first.raw, again.raw) || again.header.Get("Idempotent-Replayed") != "true" ||
		again.header.Get("ETag") != first.header.Get("ETag") || first.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("A answered %s (replayed %q), B %s (replayed %q)", first.raw, first.header.Get("Idempotent-Replayed"),
			again.raw, again.header.Get("Idempotent-Replayed"))
	}
	if r := b.do(t, "POST", "/v2/pages", tok, body("other"), "Idempotency-Key", "seq-1"); r.status != 409 || str(r.body, "code") != "idempotency_conflict" {
		t.Fatalf("another body under the key through B: %d %s", r.status, r.raw)
	}

	const rounds = 6
	for i := range rounds {
		key, title := fmt.Sprintf("both-%d", i), fmt.Sprintf("at once %d", i)
		var ra, rb answer
		both(func() { ra = a.do(t, "POST", "/v2/pages", tok, body(title), "Idempotency-Key", key) },
			func() { rb = b.do(t, "POST", "/v2/pages", tok, body(title), "Idempotency-Key", key) })
		replays := 0
		for _, r := range []answer{ra, rb} {
			if r.header.Get("Idempotent-Replayed") == "true" {
				replays++
			}
		}
		if ra.status != 200 || rb.status != 200 || !bytes.Equal(ra.raw, rb.raw) || replays != 1 {
			t.Fatalf("round %d: A %d %s, B %d %s; %d replayed", i, ra.status, ra.raw, rb.status, rb.raw, replays)
		}
	}
	want := []string{"once"}
	for i := range rounds {
		want = append(want, fmt.Sprintf("at once %d", i))
	}
	if got := c.childTitles(t, b, parent); !slices.Equal(got, want) {
		t.Fatalf("children %q, want each page once: %q", got, want)
	}
}

// testVersions sends If-Match with one version to both servers at once: exactly one may win.
func (c *cluster) testVersions(t *testing.T) {
	a, b, tok := c.a, c.b, c.token
	pg := a.ok(t, "POST", "/v2/pages", tok, titleBody("", "Versioned"))
	id, etag := str(pg.body, "id"), pg.header.Get("ETag")
	for i := range 8 {
		var ra, rb answer
		patch := func(s *server) answer {
			return s.do(t, "PATCH", "/v2/pages/"+id, tok, map[string]any{"properties": map[string]any{
				"title": richText(fmt.Sprintf("%s %d", s.name, i))}}, "If-Match", etag)
		}
		both(func() { ra = patch(a) }, func() { rb = patch(b) })
		win, lose, loser := ra, rb, b
		if rb.status == 200 {
			win, lose, loser = rb, ra, a
		}
		if win.status != 200 || lose.status != 409 || str(lose.body, "code") != "conflict" {
			t.Fatalf("round %d with If-Match %s: A %d %s, B %d %s", i, etag, ra.status, ra.raw, rb.status, rb.raw)
		}
		got := loser.ok(t, "GET", "/v2/pages/"+id, tok, nil)
		if got.header.Get("ETag") != win.header.Get("ETag") || pageTitle(got.body) != pageTitle(win.body) || etag == win.header.Get("ETag") {
			t.Fatalf("round %d: the loser reads %s %q, the winner wrote %s %q", i, got.header.Get("ETag"), pageTitle(got.body),
				win.header.Get("ETag"), pageTitle(win.body))
		}
		etag = win.header.Get("ETag")
	}

	// Mind-map edits under one version: one lands, and the map has its node only.
	mm := a.ok(t, "POST", "/v2/mind-maps", tok, map[string]any{"parent": map[string]any{"page_id": id}, "title": "Race"})
	id, root := str(mm.body, "id"), str(mm.body, "root", "id")
	b.ok(t, "GET", "/v2/mind-maps/"+id, tok, nil)
	var ra, rb answer
	edit := func(s *server) answer {
		return s.do(t, "PATCH", "/v2/mind-maps/"+id, tok, map[string]any{"edits": []any{map[string]any{"op": "add",
			"parent_id": root, "node": map[string]any{"text": "by " + s.name}}}}, "If-Match", mm.header.Get("ETag"))
	}
	both(func() { ra = edit(a) }, func() { rb = edit(b) })
	if (ra.status == 200) == (rb.status == 200) || ra.status+rb.status != 200+409 {
		t.Fatalf("mind-map edits under one version: A %d %s, B %d %s", ra.status, ra.raw, rb.status, rb.raw)
	}
	win := ra
	if rb.status == 200 {
		win = rb
	}
	for _, s := range []*server{a, b} {
		if got := mindMapTexts(s.ok(t, "GET", "/v2/mind-maps/"+id, tok, nil).body); !slices.Equal(got, mindMapTexts(win.body)) || len(got) != 2 {
			t.Fatalf("%s reads %q, the winner answered %q", s.name, got, mindMapTexts(win.body))
		}
	}
}
