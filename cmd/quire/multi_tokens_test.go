package main

import (
	"testing"
)

// testRotate rotates a token with the admin command after both servers accepted its secret: on
// the very next request after the command returns, each refuses the old secret and takes the
// new one.
func (c *cluster) testRotate(t *testing.T) {
	old, id := c.newToken(t, "rotated")
	servers := []*server{c.a, c.b}
	for _, s := range servers {
		s.ok(t, "GET", "/v2/users/me", old, nil)
	}
	rot := runJSON(t, append([]string{"token", "rotate", "--token-id", id}, c.args...)...)
	fresh := rot["token"].(string)
	for _, s := range servers {
		if r := s.do(t, "GET", "/v2/users/me", old, nil); r.status != 401 {
			t.Fatalf("%s answers the old secret with %d %s right after the rotate", s.name, r.status, r.raw)
		}
		if r := s.ok(t, "GET", "/v2/users/me", fresh, nil); str(r.body, "id") != id {
			t.Fatalf("%s: the new secret is %s, want token %s", s.name, r.raw, id)
		}
	}
}

// testWithdrawnReach gives a token one page, reads a page beneath it through both servers, then
// takes the reach away through server A and the database: server B answers 404 on the very next
// request each time (reach is checked in SQL on every request, never remembered).
func (c *cluster) testWithdrawnReach(t *testing.T) {
	granted := str(c.a.ok(t, "POST", "/v2/pages", c.token, titleBody("", "Granted")).body, "id")
	elsewhere := str(c.a.ok(t, "POST", "/v2/pages", c.token, titleBody("", "Elsewhere")).body, "id")
	child := str(c.a.ok(t, "POST", "/v2/pages", c.token, titleBody(granted, "Child")).body, "id")
	tok := runJSON(t, append([]string{"token", "create", "--workspace", c.ws, "--owner", c.user,
		"--name", "granted", "--scopes", "all", "--grant", granted}, c.args...)...)
	secret, id := tok["token"].(string), tok["bot_id"].(string)
	for _, s := range []*server{c.a, c.b} {
		s.ok(t, "GET", "/v2/pages/"+child, secret, nil)
		s.ok(t, "GET", "/v2/pages/"+granted, secret, nil)
	}
	// The child moves out from under the granted page, through A.
	c.a.ok(t, "PATCH", "/v2/pages/"+child+"/move", c.token, map[string]any{"parent": map[string]any{"page_id": elsewhere}})
	if r := c.b.do(t, "GET", "/v2/pages/"+child, secret, nil); r.status != 404 {
		t.Fatalf("B answers a page moved out of reach with %d %s", r.status, r.raw)
	}
	// No command withdraws a grant; deleting its row stands for one.
	if _, err := c.db.Exec(`DELETE FROM grants WHERE token_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*server{c.a, c.b} {
		if r := s.do(t, "GET", "/v2/pages/"+granted, secret, nil); r.status != 404 {
			t.Fatalf("%s answers a page whose grant was withdrawn with %d %s", s.name, r.status, r.raw)
		}
	}
}
