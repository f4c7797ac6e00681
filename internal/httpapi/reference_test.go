package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// chromium finds the headless browser of the reference test: QUIRE_TEST_CHROMIUM, or chromium
// on PATH. Without one the test skips, and under CI=true it fails (.ci/run installs Debian's).
func chromium(t *testing.T) string {
	if p := os.Getenv("QUIRE_TEST_CHROMIUM"); p != "" {
		return p
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium (QUIRE_TEST_CHROMIUM or chromium on PATH): CI needs it for the reference page")
	}
	t.Skip("no chromium (QUIRE_TEST_CHROMIUM or chromium on PATH)")
	return ""
}

// TestReference loads /docs in headless Chromium, with every host but the test server's made
// unresolvable: the page renders every documented operation from the served document, the
// browser reports no console error and no refused or failed load, and / and /v2 lead to it.
func TestReference(t *testing.T) {
	bin := chromium(t)
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		for _, path := range []string{"/", "/v2"} {
			req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
			res, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/docs" {
				t.Fatalf("GET %s: %d to %q, want 302 to /docs", path, res.StatusCode, res.Header.Get("Location"))
			}
		}
		page := e.do(http.MethodGet, "/docs", "", nil)
		if page.status != 200 || !strings.Contains(page.header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Fatalf("GET /docs: %d, CSP %q", page.status, page.header.Get("Content-Security-Policy"))
		}

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		host := strings.TrimPrefix(e.srv.URL, "http://")
		cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
			"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir="+t.TempDir(), "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE "+strings.Split(host, ":")[0],
			"--enable-logging=stderr", "--v=0", "--virtual-time-budget=30000", "--dump-dom", e.srv.URL+"/docs")
		var dom, log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &dom, &log
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium: %v\n%s", err, log.String())
		}
		for _, line := range strings.Split(log.String(), "\n") {
			if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Refused") || strings.Contains(line, "net::ERR") {
				t.Errorf("the browser reported: %s", line)
			}
		}
		// Every documented operation is rendered (Redoc gives each the id operation/{operationId}).
		var doc struct {
			Paths map[string]map[string]struct {
				OperationID string `json:"operationId"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(e.do(http.MethodGet, "/v2/openapi.json", "", nil).raw, &doc); err != nil {
			t.Fatal(err)
		}
		rendered := map[string]bool{}
		for _, m := range regexp.MustCompile(`operation/([a-z0-9_-]+)`).FindAllStringSubmatch(dom.String(), -1) {
			rendered[m[1]] = true
		}
		n := 0
		for path, ops := range doc.Paths {
			for method, op := range ops {
				n++
				if !rendered[op.OperationID] {
					t.Errorf("%s %s (%s) is not on the page", method, path, op.OperationID)
				}
			}
		}
		if n < 30 || !strings.Contains(dom.String(), "Quire API") {
			t.Fatalf("the page lists %d operations of %d documented; title missing: %.400s", len(rendered), n, dom.String())
		}
	})
}
