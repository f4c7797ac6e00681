package httpapi

import (
	"strconv"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestRateLimit(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st, envOptions{rateLimit: 3})
		other := e.token(nil, true)
		var limited *response
		for i := range 10 {
			r := e.do("GET", "/v2/users/me", e.full, nil)
			if r.header.Get("RateLimit-Limit") != "3" || r.header.Get("RateLimit-Remaining") == "" || r.header.Get("RateLimit-Reset") == "" {
				t.Fatalf("request %d: missing RateLimit headers: %v", i, r.header)
			}
			if r.status == 429 {
				limited = r
				break
			}
			if rem, _ := strconv.Atoi(r.header.Get("RateLimit-Remaining")); rem != 2-i {
				t.Fatalf("request %d: RateLimit-Remaining = %d, want %d", i, rem, 2-i)
			}
		}
		if limited == nil {
			t.Fatal("10 requests at once were never limited at 3/s")
		}
		limited.wantError(t, 429, quire.CodeRateLimited, "")
		if ra, err := strconv.Atoi(limited.header.Get("Retry-After")); err != nil || ra < 1 {
			t.Fatalf("Retry-After = %q", limited.header.Get("Retry-After"))
		}
		// Buckets are per token.
		if r := e.do("GET", "/v2/users/me", other, nil); r.status != 200 {
			t.Fatalf("another token was limited: %d", r.status)
		}
		// Public routes are not limited and carry no headers.
		if r := e.do("GET", "/v2/openapi/meta", "", nil); r.status != 200 || r.header.Get("RateLimit-Limit") != "" {
			t.Fatalf("public route: %d, RateLimit-Limit %q", r.status, r.header.Get("RateLimit-Limit"))
		}
	})
}

func TestRateLimitOff(t *testing.T) {
	e := newEnv(t, testdb.SQLite(t))
	for range 50 {
		r := e.do("GET", "/v2/users/me", e.full, nil)
		if r.status != 200 || r.header.Get("RateLimit-Limit") != "" {
			t.Fatalf("rate limit off: %d, RateLimit-Limit %q", r.status, r.header.Get("RateLimit-Limit"))
		}
	}
}
