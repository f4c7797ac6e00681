package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// idemWrite is a write repeated under one Idempotency-Key: its path and method, and the body
// for value s.
type idemWrite struct {
	name, method, path string
	body               func(s string) any
}

// raceIdempotencyKey: many clients send the same write under one Idempotency-Key at once.
// Exactly one runs; every answer is that one's bytes, replayed (docs/api.md allows 409
// idempotency_conflict for a repeat that waited 10 s, which these must not need). Under a key
// raced by two different bodies, one body wins and every request with the other answers 409
// idempotency_conflict.
func raceIdempotencyKey(t *testing.T, st *store.Store) {
	rounds := raceRounds(2, 30)
	e := newEnv(t, st)
	rc := e.racer()
	parent := e.mkPage(t, e.full, wsParent, "Idempotent")
	writes := []idemWrite{
		{"create page", http.MethodPost, "/v2/pages", func(s string) any {
			return map[string]any{"parent": pageParent(parent), "properties": titleOf(s)}
		}},
		{"append block", http.MethodPatch, "/v2/blocks/" + parent + "/children", func(s string) any {
			return map[string]any{"children": []any{para(s)}}
		}},
	}
	want := map[string]int{} // texts of the parent's children, each once
	for round := range rounds {
		for _, w := range writes {
			for _, mixed := range []bool{false, true} {
				key := fmt.Sprintf("%s-%d-%t", w.name, round, mixed)
				value := func(i int) string {
					if mixed && i%2 == 1 {
						return key + "-B"
					}
					return key + "-A"
				}
				answers := make([]*response, raceClients)
				var f faults
				race(raceClients, func(i int) {
					r, err := rc.send(w.method, w.path, w.body(value(i)), "Idempotency-Key", key)
					if f.answered(key, r, err, 200, 409) {
						answers[i] = r
					}
				})
				f.check(t)
				won := checkIdempotentAnswers(t, key, answers, value)
				want[won]++
			}
		}
	}
	got := map[string]int{}
	for _, b := range e.kids(t, parent) {
		switch b["type"] {
		case "child_page":
			got[dig(b, "child_page", "title").(string)]++
		case "paragraph":
			got[plainText(dig(b, "paragraph", "rich_text"))]++
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d distinct children, want %d", len(got), len(want))
	}
	for s, n := range got {
		if n != 1 || want[s] != 1 {
			t.Fatalf("child %q is there %d times, want once", s, n)
		}
	}
}

// checkIdempotentAnswers checks the answers of one raced key and returns the winning value:
// every client whose body won has the same 200 bytes, exactly one of them fresh; every other
// client has 409 idempotency_conflict.
func checkIdempotentAnswers(t *testing.T, key string, answers []*response, value func(i int) string) string {
	t.Helper()
	var first *response
	won, fresh := "", 0
	for i, a := range answers {
		if a.status != 200 {
			continue
		}
		if first == nil {
			first, won = a, value(i)
		}
		if value(i) != won {
			t.Fatalf("%s: both bodies were applied", key)
		}
		if !bytes.Equal(a.raw, first.raw) || a.header.Get("ETag") != first.header.Get("ETag") {
			t.Fatalf("%s: answers differ:\n%s\n%s", key, first.raw, a.raw)
		}
		if a.header.Get("Idempotent-Replayed") != "true" {
			fresh++
		}
	}
	if first == nil || fresh != 1 {
		t.Fatalf("%s: %d fresh answers, want 1", key, fresh)
	}
	for i, a := range answers {
		if value(i) != won {
			a.wantError(t, 409, quire.CodeIdempotencyConflict, "")
		} else if a.status != 200 {
			t.Fatalf("%s: a repeat of the winning body answered %d: %s", key, a.status, a.raw)
		}
	}
	return won
}
