package client

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// backoff is the wait before try attempt+1 when the server named none: capped exponential
// growth from minDelay with full jitter, so that many clients refused at once spread out.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.minDelay
	for i := 1; i < attempt && d < c.maxDelay; i++ {
		d *= 2
	}
	d = min(d, c.maxDelay)
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads the wait a 429 or 503 asks for: Retry-After in seconds (or as an HTTP
// date), else RateLimit-Reset when RateLimit-Remaining is 0. Zero when neither says.
func retryAfter(h http.Header) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			return time.Duration(s) * time.Second
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(time.Until(t), 0)
		}
	}
	if strings.TrimSpace(h.Get("RateLimit-Remaining")) == "0" {
		if s, err := strconv.Atoi(strings.TrimSpace(h.Get("RateLimit-Reset"))); err == nil && s > 0 {
			return time.Duration(s) * time.Second
		}
	}
	return 0
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
