package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is a token bucket per token: perSecond requests a second, with a burst of one second's
// worth. It lives in the process: with several servers each holds its own buckets.
type limiter struct {
	perSecond float64
	burst     int
	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(perSecond float64) *limiter {
	return &limiter{perSecond: perSecond, burst: max(1, int(math.Ceil(perSecond))), buckets: map[string]*bucket{}}
}

// admit takes one request from key's bucket and sets the RateLimit-* headers (and Retry-After
// when it refuses).
func (l *limiter) admit(w http.ResponseWriter, key string) bool {
	now := time.Now()
	l.mu.Lock()
	b, ok := l.buckets[key]
	if !ok {
		l.sweep(now)
		b = &bucket{lim: rate.NewLimiter(rate.Limit(l.perSecond), l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	allowed := b.lim.AllowN(now, 1)
	tokens := b.lim.TokensAt(now)
	l.mu.Unlock()

	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(l.burst))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(0, int(math.Floor(tokens)))))
	// Seconds until the bucket is full again.
	h.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil((float64(l.burst)-tokens)/l.perSecond))))
	if !allowed {
		h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil((1-tokens)/l.perSecond)))))
	}
	return allowed
}

// sweep drops buckets idle for a minute (a full bucket is the same as none), at most every 10 s.
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < 10*time.Second {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		if now.Sub(b.seen) > time.Minute {
			delete(l.buckets, k)
		}
	}
}
