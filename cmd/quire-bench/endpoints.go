package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// request is one HTTP request a load run may send.
type request struct {
	Method, Path, Body string
}

// endpoint is one measured route and the requests a run picks from at random.
type endpoint struct {
	name  string // as --endpoints names it
	label string // in the report
	reqs  []request
	grows bool // writes: the indexer has work after each run
}

// endpointNames are the measurable endpoints, in measuring order: append last, since what it
// writes queues work for the indexer, which is let finish before anything else is measured.
var endpointNames = []string{"me", "page", "children", "query", "search", "semantic", "append"}

// endpointLabels name them in the report.
var endpointLabels = map[string]string{
	"me":       "GET /v2/users/me",
	"page":     "GET /v2/pages/{id}",
	"children": "GET /v2/blocks/{id}/children",
	"query":    "POST /v2/databases/{id}/query",
	"search":   "POST /v2/search",
	"semantic": "POST /v2/search/semantic",
	"append":   "PATCH /v2/blocks/{id}/children",
}

// parseEndpoints reads --endpoints ("all" or a comma-separated list), in measuring order.
func parseEndpoints(s string) ([]string, error) {
	if s == "all" {
		return endpointNames, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(endpointNames, f) {
			return nil, fmt.Errorf("--endpoints: %q is not one of %s", f, strings.Join(endpointNames, ", "))
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(endpointNames, a) - slices.Index(endpointNames, b) })
	return slices.Compact(out), nil
}

// buildEndpoint makes the requests of endpoint name over the seeded workspace; cursors are
// start_cursor values into seeded pages' children (see collectCursors).
func buildEndpoint(name string, sd *seeded, cursors []request) endpoint {
	e := endpoint{name: name, label: endpointLabels[name], grows: name == "append"}
	r := rand.New(rand.NewPCG(42, 7))
	switch name {
	case "me":
		e.reqs = []request{{"GET", mePath, ""}}
	case "page":
		for _, p := range sample(r, sd.Pages, 1000) {
			e.reqs = append(e.reqs, request{"GET", "/v2/pages/" + p, ""})
		}
	case "children":
		for _, p := range sample(r, sd.Pages, 1000) {
			e.reqs = append(e.reqs, request{"GET", "/v2/blocks/" + p + "/children?page_size=100", ""})
		}
		e.reqs = append(e.reqs, cursors...)
	case "query":
		for _, b := range queryBodies() {
			e.reqs = append(e.reqs, request{"POST", "/v2/databases/" + sd.Database + "/query", b})
		}
	case "search":
		for _, q := range keywordQueries(r, sd.Blocks) {
			e.reqs = append(e.reqs, request{"POST", "/v2/search", mustJSON(map[string]any{"query": q})})
		}
	case "semantic":
		for _, t := range topics {
			e.reqs = append(e.reqs, request{"POST", "/v2/search/semantic", mustJSON(map[string]any{"query": t.semantic})})
		}
	case "append":
		for k, p := range sd.Targets {
			for v := range 4 {
				var children []any
				t := topics[(k+v)%len(topics)]
				for j := range 10 {
					children = append(children, map[string]any{"type": "paragraph",
						"paragraph": map[string]any{"rich_text": richText(sentence(r, t, j))}})
				}
				e.reqs = append(e.reqs, request{"PATCH", "/v2/blocks/" + p + "/children", mustJSON(map[string]any{"children": children})})
			}
		}
	}
	return e
}

// queryBodies filter and sort the Tasks database as a table view would: on a select, on tags
// and a number range, on text, on a date, and no filter at all.
func queryBodies() []string {
	var out []string
	for _, s := range taskStatuses {
		out = append(out, mustJSON(map[string]any{"filter": map[string]any{"property": "Status", "select": map[string]any{"equals": s}},
			"sorts": []any{map[string]any{"property": "Points", "direction": "descending"}}}))
	}
	for _, tag := range taskTags[:3] {
		out = append(out, mustJSON(map[string]any{"filter": map[string]any{"and": []any{
			map[string]any{"property": "Tags", "multi_select": map[string]any{"contains": tag}},
			map[string]any{"property": "Points", "number": map[string]any{"greater_than": 50}}}},
			"sorts": []any{map[string]any{"property": "Due", "direction": "ascending"}}}))
	}
	out = append(out,
		mustJSON(map[string]any{"filter": map[string]any{"property": "Notes", "rich_text": map[string]any{"contains": "rollback"}}}),
		mustJSON(map[string]any{"filter": map[string]any{"property": "Due", "date": map[string]any{"on_or_after": "2026-10-01"}},
			"sorts": []any{map[string]any{"property": "Due", "direction": "ascending"}}}),
		mustJSON(map[string]any{"sorts": []any{map[string]any{"timestamp": "last_edited_time", "direction": "descending"}}}))
	return out
}

// keywordQueries mix common single words, two-word queries, a title word, a CJK phrase and
// tickets that occur in exactly one block each.
func keywordQueries(r *rand.Rand, blocks int) []string {
	qs := []string{"postmortem", "invoice", "webinar", "replica", "candidate", "typography",
		"schema change", "refund escalation", "roadmap", "项目会议", "notes Friday"}
	for range 10 {
		if n := blocks / 50; n > 0 {
			qs = append(qs, ticket(r.IntN(n)*50+7))
		}
	}
	return qs
}

// sample picks at most n of xs at random (all of them, shuffled, when there are fewer).
func sample(r *rand.Rand, xs []string, n int) []string {
	s := slices.Clone(xs)
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s[:min(n, len(s))]
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
