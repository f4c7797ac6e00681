package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// serveLogs starts serve with args on a store holding one token, sends requests, stops it and
// returns the request lines it logged (by path and method) and the token's id.
func serveLogs(t *testing.T, args ...string) (lines map[string]map[string]any, botID string) {
	t.Helper()
	sf := []string{"--data", t.TempDir()}
	ws := runJSON(t, append([]string{"workspace", "create", "--name", "W", "--create"}, sf...)...)["id"].(string)
	u := runJSON(t, append([]string{"user", "create", "--workspace", ws, "--name", "U", "--email", "u@example.com"}, sf...)...)["id"].(string)
	tok := runJSON(t, append([]string{"token", "create", "--workspace", ws, "--owner", u, "--name", "logs", "--scopes", "all", "--workspace-scoped"}, sf...)...)
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append(append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn"}, sf...), args...), stdout, stderr)
	}()
	base := waitForURL(t, stdout, done)

	if got := scrapeLine(t, base, `quire_build_info{goversion="`+runtime.Version()+`",version="devel"}`); got != "1" {
		t.Fatalf("quire_build_info = %q, want 1", got)
	}
	for _, r := range []struct{ method, path string }{{"GET", "/healthz"}, {"GET", "/readyz"}, {"GET", "/v2/users/me"}, {"PUT", "/v2/users/me"}} {
		req, _ := http.NewRequest(r.method, base+r.path, nil)
		req.Header.Set("Authorization", "Bearer "+tok["token"].(string))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lines = map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(stderr.String()))
	for sc.Scan() {
		var l map[string]any
		if json.Unmarshal(sc.Bytes(), &l) == nil && l["msg"] == "request" {
			lines[l["method"].(string)+" "+l["path"].(string)] = l
		}
	}
	return lines, tok["bot_id"].(string)
}

// TestServe_AccessLog checks the access log's own switch: request lines are written whatever
// --log-level says, probes only with --access-log debug, none with off; and a 405 line names
// the route the path belongs to and the token that called it.
func TestServe_AccessLog(t *testing.T) {
	t.Run("on", func(t *testing.T) {
		lines, botID := serveLogs(t)
		if l := lines["GET /v2/users/me"]; l == nil || l["level"] != "INFO" || l["status"] != 200.0 || l["token_id"] != botID || l["route"] != "GET /v2/users/me" {
			t.Fatalf("GET /v2/users/me logged as %v under --log-level warn", l)
		}
		if l := lines["PUT /v2/users/me"]; l == nil || l["status"] != 405.0 || l["route"] != "/v2/users/me" || l["token_id"] != botID {
			t.Fatalf("405 logged as %v, want route /v2/users/me and token %s", l, botID)
		}
		if l := lines["GET /healthz"]; l != nil {
			t.Fatalf("a probe logged at INFO: %v", l)
		}
		if l := lines["GET /metrics"]; l == nil {
			t.Fatalf("the scrape is not a probe and is logged: %v", lines)
		}
	})
	t.Run("debug", func(t *testing.T) {
		lines, _ := serveLogs(t, "--access-log", "debug")
		for _, p := range []string{"GET /healthz", "GET /readyz"} {
			if l := lines[p]; l == nil || l["level"] != "DEBUG" || l["status"] != 200.0 {
				t.Fatalf("%s with --access-log debug: %v", p, l)
			}
		}
	})
	t.Run("off", func(t *testing.T) {
		if lines, _ := serveLogs(t, "--access-log", "off"); len(lines) != 0 {
			t.Fatalf("--access-log off logged %v", lines)
		}
	})
	t.Run("bad value", func(t *testing.T) {
		if msg := runErr(t, "serve", "--access-log", "verbose", "--data", t.TempDir()); !strings.Contains(msg, "want on, off or debug") {
			t.Fatalf("--access-log verbose: %s", msg)
		}
	})
}
