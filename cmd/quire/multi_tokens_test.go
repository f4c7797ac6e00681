package main

import (
	"testing"
)

// testRotate rotates a token with the admin command while both servers trust its secret from
// their token caches (kept warm by requests during the rotation): on the very next request after
// the command returns, each refuses the old secret and takes the new one.
func (c *cluster) testRotate(t *testing.T) {
	old, id := c.newToken(t, "rotated")
	servers := []*server{c.a, c.b}
	for _, s := range servers {
		s.ok(t, "GET", "/v2/users/me", old, nil)
	}
	stop := make(chan struct{})
	warmed := make(chan int)
	go func() { // keep the old secret in both caches until the command returns
		n := 0
		for {
			select {
			case <-stop:
				warmed <- n
				return
			default:
			}
			for _, s := range servers {
				if s.do(t, "GET", "/v2/users/me", old, nil).status == 200 {
					n++
				}
			}
		}
	}()
	rot := runJSON(t, append([]string{"token", "rotate", "--token-id", id}, c.args...)...)
	close(stop)
	if n := <-warmed; n == 0 {
		t.Fatal("the old secret was never accepted during the rotation: nothing was cached")
	}
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
