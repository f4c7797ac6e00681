package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/testdb"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		main() // this process is a server of a several-servers test (multi_test.go)
		os.Exit(0)
	}
	code := testdb.Main(m)
	removeQuireBinary()
	os.Exit(code)
}

// storeArgs are the store flags of one engine's test store.
type storeArgs func(t *testing.T) []string

var engines = map[string]storeArgs{
	"sqlite": func(t *testing.T) []string { return []string{"--data", t.TempDir()} },
	// --data too: uploads go to DATA/files on either engine, and not into the source tree.
	"postgres": func(t *testing.T) []string {
		return []string{"--database-url", testdb.PostgresURL(t), "--data", t.TempDir()}
	},
}

// runJSON runs one command line in-process and decodes its single JSON object.
func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("quire %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	dec := json.NewDecoder(&out)
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("quire %s printed no JSON object: %v: %q", args[0], err, out.String())
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("quire %s printed more than one JSON object: %q", args[0], out.String())
	}
	return obj
}

func TestServeAndAdmin(t *testing.T) {
	for name, storeFlags := range engines {
		t.Run(name, func(t *testing.T) {
			sf := storeFlags(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stdout := &syncBuffer{}
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn"}, sf...), stdout, io.Discard)
			}()
			base := waitForURL(t, stdout, done)

			// The document is public.
			res, err := http.Get(base + "/v2/openapi/meta")
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("GET /v2/openapi/meta: %v %v", res, err)
			}
			res.Body.Close()

			// Metrics are on by default and count by route pattern.
			if got := scrapeLine(t, base, `quire_http_requests_total{code="200",route="GET /v2/openapi/meta"}`); got != "1" {
				t.Fatalf("metrics: the request to /v2/openapi/meta counted %q times, want 1", got)
			}

			// Admin commands work while the server runs on the same store.
			ws := runJSON(t, append([]string{"workspace", "create", "--name", "Acme"}, sf...)...)
			if ws["object"] != "workspace" || ws["name"] != "Acme" {
				t.Fatalf("workspace create printed %v", ws)
			}
			user := runJSON(t, append([]string{"user", "create", "--workspace", ws["id"].(string), "--name", "Ada", "--email", "ada@example.com"}, sf...)...)
			if user["object"] != "user" {
				t.Fatalf("user create printed %v", user)
			}
			tok := runJSON(t, append([]string{"token", "create", "--workspace", ws["id"].(string), "--owner", user["id"].(string),
				"--name", "ci", "--scopes", "all", "--workspace-scoped"}, sf...)...)
			secret := tok["token"].(string)
			if len(secret) < 30 || tok["bot_id"] == nil || tok["integration_id"] == nil {
				t.Fatalf("token create printed %v", tok)
			}
			me := get(t, base+"/v2/users/me", secret)
			if me["id"] != tok["bot_id"] || me["workspace_name"] != "Acme" {
				t.Fatalf("users/me = %v", me)
			}

			// Graceful shutdown: requests keep flowing while the server stops; every answer that
			// arrives is complete, and serve returns nil (exit status 0).
			var ok, failed atomic.Int64
			var wg sync.WaitGroup
			stop := make(chan struct{})
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						req, _ := http.NewRequest("GET", base+"/v2/users/me", nil)
						req.Header.Set("Authorization", "Bearer "+secret)
						res, err := http.DefaultClient.Do(req)
						if err != nil {
							continue // refused once the listener has closed
						}
						var body map[string]any
						if json.NewDecoder(res.Body).Decode(&body) != nil || res.StatusCode != 200 {
							failed.Add(1)
						} else {
							ok.Add(1)
						}
						res.Body.Close()
					}
				}()
			}
			time.Sleep(100 * time.Millisecond)
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("serve returned %v, want nil", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("serve did not stop")
			}
			close(stop)
			wg.Wait()
			if ok.Load() == 0 || failed.Load() != 0 {
				t.Fatalf("during shutdown: %d complete answers, %d broken", ok.Load(), failed.Load())
			}
		})
	}
}

func TestAdmin_Grants(t *testing.T) {
	sf := []string{"--data", t.TempDir()}
	ws := runJSON(t, append([]string{"workspace", "create", "--name", "W", "--create"}, sf...)...)["id"].(string)
	user := runJSON(t, append([]string{"user", "create", "--workspace", ws, "--name", "U", "--email", "u@example.com"}, sf...)...)["id"].(string)
	var out, errOut bytes.Buffer
	// A token that is neither workspace-scoped nor granted anything reaches nothing: refused.
	err := run(context.Background(), append([]string{"token", "create", "--workspace", ws, "--owner", user, "--name", "n", "--scopes", "pages.read"}, sf...), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "--grant") {
		t.Fatalf("token without grant: %v", err)
	}
	tok := runJSON(t, append([]string{"token", "create", "--workspace", ws, "--owner", user, "--name", "n", "--scopes", "pages.read,users.read", "--workspace-scoped"}, sf...)...)
	rec := runJSON(t, append([]string{"token", "revoke", "--token-id", tok["bot_id"].(string)}, sf...)...)
	if rec["object"] != "token" || rec["revoked_time"] == nil || rec["token"] != nil {
		t.Fatalf("revoke printed %v", rec)
	}
	if got := rec["scopes"].([]any); len(got) != 2 || got[0] != "pages.read" || got[1] != "users.read" {
		t.Fatalf("scopes = %v", got)
	}
	err = run(context.Background(), append([]string{"token", "grant", "--token-id", tok["bot_id"].(string), "--grant", "00000000-0000-4000-8000-000000000000"}, sf...), &out, &errOut)
	if err == nil {
		t.Fatal("grant of a missing page succeeded")
	}
}

func TestCLI_UsageAndHelp(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr bool
		want    string
	}{
		{[]string{"serve", "--help"}, false, "--rate-limit"},
		{[]string{"serve", "--help"}, false, "--metrics=false turns it off (env QUIRE_METRICS)"},
		{[]string{"workspace", "create", "--help"}, false, "--name"},
		{[]string{"user", "create", "--help"}, false, "--email"},
		{[]string{"token", "create", "--help"}, false, "--workspace-scoped"},
		{[]string{"token", "grant", "--help"}, false, "--grant"},
		{[]string{"token", "revoke", "--help"}, false, "--token-id"},
		{[]string{"token", "rotate", "--help"}, false, "Every server refuses the old secret"},
		{[]string{"token", "list", "--help"}, false, "--workspace"},
		{[]string{"token", "show", "--help"}, false, "never its secret"},
		{[]string{"workspace", "list", "--help"}, false, "--create"},
		{[]string{"user", "list", "--help"}, false, "--workspace"},
		{[]string{"serve", "--help"}, false, "--access-log"},
		{[]string{"token", "--help"}, false, "quire token rotate --token-id BOT_ID\n  quire token show"},
		{[]string{"token", "help"}, false, "quire token create"},
		{[]string{"user", "-h"}, false, "quire user list --workspace WS"},
		{[]string{"workspace", "--help"}, false, "quire workspace list"},
		{[]string{"token"}, true, "quire token grant"},
		{[]string{"version"}, false, "quire devel (go1."},
		{[]string{"--version"}, false, "quire devel (go1."},
		{[]string{"help"}, false, "quire serve"},
		{[]string{"help"}, false, "quire token rotate"},
		{[]string{}, true, "Usage"},
		{[]string{"frobnicate"}, true, "unknown command"},
		{[]string{"token", "explode"}, true, `unknown command "token explode"; "quire token --help" lists`},
		{[]string{"serve", "--no-such-flag"}, true, "no-such-flag"},
		{[]string{"workspace", "create"}, true, "--name is required"},
		{[]string{"token", "create", "--scopes", "all"}, true, "--workspace is required"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tc.args, &out, &errOut)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			all := out.String() + errOut.String()
			if err != nil {
				all += err.Error()
			}
			if !strings.Contains(all, tc.want) {
				t.Fatalf("output lacks %q:\n%s", tc.want, all)
			}
		})
	}
}

func get(t *testing.T, url, token string) map[string]any {
	t.Helper()
	res := authGet(t, url, token)
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
	return body
}

// authGet sends GET url with the token.
func authGet(t *testing.T, url, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var servingLine = regexp.MustCompile(`serving (http://\S+)/v2`)

// waitForURL waits for serve's first line and returns the base URL it announces.
func waitForURL(t *testing.T, out *syncBuffer, done chan error) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				return m[1]
			}
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatal("serve did not start")
	return ""
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
