package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// scrapeLine reads GET /metrics and returns the value of the sample named exactly series
// (name{labels} as the text format writes it), or "" when there is none.
func scrapeLine(t *testing.T, base, series string) string {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("GET /metrics: %d", res.StatusCode)
	}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			return v
		}
	}
	return ""
}

// TestServe_MetricsSwitch turns the endpoint off with the flag and with the environment
// variable; the flag wins over the variable, and a variable that is not a boolean stops serve.
func TestServe_MetricsSwitch(t *testing.T) {
	for _, c := range []struct {
		name, env string
		args      []string
		want      int
	}{
		{"env off", "false", nil, 404},
		{"flag off", "", []string{"--metrics=false"}, 404},
		{"flag on over env off", "0", []string{"--metrics"}, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("QUIRE_METRICS", c.env)
			}
			ctx, cancel := context.WithCancel(context.Background())
			stdout := &syncBuffer{}
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn", "--data", t.TempDir()}, c.args...), stdout, io.Discard)
			}()
			defer func() { cancel(); <-done }()
			res, err := http.Get(waitForURL(t, stdout, done) + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != c.want {
				t.Fatalf("GET /metrics: %d, want %d", res.StatusCode, c.want)
			}
		})
	}
	t.Setenv("QUIRE_METRICS", "off")
	err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "QUIRE_METRICS") {
		t.Fatalf("QUIRE_METRICS=off: %v, want an error naming the variable", err)
	}
}
