package main

import (
	"testing"
	"time"
)

const wrkSample = `Running 3s test @ http://127.0.0.1:40001/v2/users/me
  2 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   412.10us    1.02ms  38.95ms   97.12%
    Req/Sec    10.35k     1.20k   12.90k    70.00%
  Latency Distribution
     50%  243.00us
     75%  301.00us
     90%  412.00us
     99%    4.90ms
  61782 requests in 3.00s, 37.24MB read
  Non-2xx or 3xx responses: 12
Requests/sec:  20593.14
Transfer/sec:     12.41MB
`

func TestParseWrk(t *testing.T) {
	r, err := parseWrk(wrkSample)
	if err != nil {
		t.Fatal(err)
	}
	want := wrkResult{rps: 20593.14, p50: 243 * time.Microsecond, p99: 4900 * time.Microsecond, non2xx: 12,
		requests: 61782, bytes: 37.24 * (1 << 20)}
	if r != want {
		t.Fatalf("parseWrk = %+v, want %+v", r, want)
	}
}

func TestParseWrkIncomplete(t *testing.T) {
	if _, err := parseWrk("unable to connect to 127.0.0.1:1 Connection refused\n"); err == nil {
		t.Fatal("no error for output without figures")
	}
}

func TestParseWrkTime(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"38.00us": 38 * time.Microsecond, "1.25ms": 1250 * time.Microsecond,
		"2.01s": 2010 * time.Millisecond, "1.50m": 90 * time.Second,
	} {
		got, err := parseWrkTime(in)
		if err != nil || got != want {
			t.Errorf("parseWrkTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseWrkTime("12"); err == nil {
		t.Error("no error for a latency without unit")
	}
}

func TestMedian(t *testing.T) {
	if got := median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("odd median = %v", got)
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("even median = %v", got)
	}
	if got := thousands(21984.4); got != "21,984" {
		t.Errorf("thousands = %q", got)
	}
}

func TestLuaString(t *testing.T) {
	for in, want := range map[string]string{
		`{"q":"a\\b"}`: `"{\"q\":\"a\\\\b\"}"`,
		"é\n":          `"\195\169\010"`,
	} {
		if got := luaString(in); got != want {
			t.Errorf("luaString(%q) = %s, want %s", in, got, want)
		}
	}
}
