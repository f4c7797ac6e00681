package httpapi

import (
	"net/http"
	"testing"
)

// mindMapCases are the conformance cases of the mind-map routes, over a map made here through
// the API. They run in order: later cases see earlier changes.
func mindMapCases(t testing.TB, e *env, pagesOnly, unknown string) []conformanceCase {
	t.Helper()
	r := e.do(http.MethodPost, "/v2/mind-maps", e.full, map[string]any{"parent": wsParent, "title": "Conformance",
		"root": mmNode("R", mmNode("A"), mmNode("B"))})
	if r.status != 200 {
		t.Fatalf("fixture mind map: %d %s", r.status, r.raw)
	}
	id := r.body["id"].(string)
	ids := nodeIDs(rootOf(r))
	return []conformanceCase{
		{name: "create mind map", op: "create-mind-map", method: "POST", path: "/v2/mind-maps", token: e.full, status: 200,
			body: `{"parent":{"type":"workspace","workspace":true},"title":[{"text":{"content":"Plan"}}],` +
				`"root":{"text":"2026","color":"blue","children":[{"text":"Q1","collapsed":true,"children":[{"text":"Launch"}]}]},` +
				`"settings":{"layout":"org","theme":"dark"}}`},
		{name: "create mind map with a string title", op: "create-mind-map", method: "POST", path: "/v2/mind-maps", token: e.full, status: 200,
			body: `{"parent":{"workspace":true},"title":"Ideas"}`},
		{name: "create mind map unknown field", op: "create-mind-map", method: "POST", path: "/v2/mind-maps", token: e.full, status: 400,
			body: `{"parent":{"workspace":true},"title":"x","nodes":[]}`},
		{name: "create mind map unknown layout", op: "create-mind-map", method: "POST", path: "/v2/mind-maps", token: e.full, status: 400,
			body: `{"parent":{"workspace":true},"title":"x","settings":{"layout":"radial"}}`},
		{name: "create mind map without token", op: "create-mind-map", method: "POST", path: "/v2/mind-maps", status: 401,
			body: `{"parent":{"workspace":true},"title":"x"}`},
		{name: "create mind map read-only", op: "create-mind-map", method: "POST", path: "/v2/mind-maps", token: pagesOnly, status: 403,
			body: `{"parent":{"workspace":true},"title":"x"}`},
		{name: "mind map", op: "retrieve-mind-map", path: "/v2/mind-maps/" + id, token: e.full, status: 200},
		{name: "unknown mind map", op: "retrieve-mind-map", path: "/v2/mind-maps/" + unknown, token: e.full, status: 404},
		{name: "mind map id not a uuid", op: "retrieve-mind-map", path: "/v2/mind-maps/abc", token: e.full, status: 400},
		{name: "mind map without token", op: "retrieve-mind-map", path: "/v2/mind-maps/" + id, status: 401},
		{name: "update mind map", op: "update-mind-map", method: "PATCH", path: "/v2/mind-maps/" + id, token: e.full, status: 200,
			body: `{"title":"Renamed","settings":{"theme":"minimal"},"edits":[` +
				`{"op":"add","parent_id":"` + ids["A"] + `","node":{"text":"A1","children":[{"text":"A1a"}]}},` +
				`{"op":"update","node_id":"` + ids["B"] + `","text":"B!","color":"green","collapsed":true},` +
				`{"op":"move","node_id":"` + ids["B"] + `","parent_id":"` + ids["R"] + `","position":{"type":"start"}},` +
				`{"op":"add","parent_id":"` + ids["R"] + `","after":"` + ids["B"] + `","node":{"text":"C"}},` +
				`{"op":"delete","node_id":"` + ids["A"] + `"}]}`,
			headers: []string{"If-Match", r.header.Get("ETag")}},
		{name: "update mind map stale", op: "update-mind-map", method: "PATCH", path: "/v2/mind-maps/" + id, token: e.full, status: 409,
			body: `{"title":"x"}`, headers: []string{"If-Match", `W/"1"`}},
		{name: "update mind map unknown op", op: "update-mind-map", method: "PATCH", path: "/v2/mind-maps/" + id, token: e.full, status: 400,
			body: `{"edits":[{"op":"copy","node_id":"` + ids["R"] + `"}]}`},
		{name: "update mind map delete root", op: "update-mind-map", method: "PATCH", path: "/v2/mind-maps/" + id, token: e.full, status: 400,
			body: `{"edits":[{"op":"delete","node_id":"` + ids["R"] + `"}]}`, semantic: true},
		{name: "update unknown mind map", op: "update-mind-map", method: "PATCH", path: "/v2/mind-maps/" + unknown, token: e.full, status: 404,
			body: `{}`},
		{name: "update mind map without token", op: "update-mind-map", method: "PATCH", path: "/v2/mind-maps/" + id, status: 401, body: `{}`},
	}
}
