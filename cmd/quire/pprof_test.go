package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
)

var pprofLine = regexp.MustCompile(`profiles at (http://\S+)/debug/pprof/`)

// TestServe_Pprof: --pprof serves the profiles on its own address, and the API's address does
// not have them.
func TestServe_Pprof(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--pprof", "127.0.0.1:0", "--log-level", "warn",
			"--access-log", "off", "--data", t.TempDir()}, stdout, io.Discard)
	}()
	api := waitForURL(t, stdout, done)
	m := pprofLine.FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("no profiles line in %q", stdout.String())
	}
	for _, tc := range []struct {
		url, want string
		status    int
	}{
		{m[1] + "/debug/pprof/", "goroutine", 200},
		{m[1] + "/debug/pprof/goroutine?debug=1", "goroutine profile:", 200},
		{api + "/debug/pprof/", `"not_found"`, 404},
		{api + "/debug/pprof/goroutine?debug=1", `"not_found"`, 404},
	} {
		res, err := http.Get(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.status || !strings.Contains(string(body), tc.want) {
			t.Fatalf("GET %s: %d %.200q; want %d with %q", tc.url, res.StatusCode, body, tc.status, tc.want)
		}
	}
	stopServe(t, cancel, done)
	if _, err := http.Get(m[1] + "/debug/pprof/"); err == nil {
		t.Fatal("the profiles are still served after serve returned")
	}
}

// TestServe_FlagErrorsBusy: a profiles address off loopback and a negative worker count are
// refused before anything starts.
func TestServe_FlagErrorsBusy(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--pprof", "0.0.0.0:6060"}, "only on loopback"},
		{[]string{"--pprof", ":6060"}, "only on loopback"},
		{[]string{"--pprof", "192.0.2.1:6060"}, "only on loopback"},
		{[]string{"--pprof", "example.com:6060"}, "only on loopback"},
		{[]string{"--pprof", "6060"}, "missing port"},
		{[]string{"--index-workers", "-1"}, "--index-workers"},
	} {
		data := t.TempDir()
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data}, tc.args...)
		err := run(context.Background(), args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("serve %v = %v, want an error about %q", tc.args, err, tc.want)
		}
		if left, _ := os.ReadDir(data); len(left) > 0 {
			t.Fatalf("serve %v made %s before refusing", tc.args, left[0].Name())
		}
	}
}
