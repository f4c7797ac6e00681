package main

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestServe_Demo seeds a demo workspace on an empty store, checks that every request of the
// seed was accepted and that its token reaches the content, then starts again on the same
// store, which is left alone.
func TestServe_Demo(t *testing.T) {
	for name, storeFlags := range engines {
		t.Run(name, func(t *testing.T) {
			sf := append(storeFlags(t), "--data", t.TempDir())
			serveDemo := func() (base, out string, stop func()) {
				ctx, cancel := context.WithCancel(context.Background())
				stdout := &syncBuffer{}
				done := make(chan error, 1)
				go func() {
					done <- run(ctx, append([]string{"serve", "--demo", "--addr", "127.0.0.1:0", "--log-level", "warn"}, sf...), stdout, io.Discard)
				}()
				base = waitForURL(t, stdout, done)
				return base, stdout.String(), func() { cancel(); <-done }
			}
			base, out, stop := serveDemo()
			if strings.Contains(out, "--demo:") {
				t.Fatalf("a seed request was refused:\n%s", out)
			}
			token := regexp.MustCompile(`quire_[A-Za-z0-9_-]+`).FindString(out)
			if token == "" || !strings.Contains(out, "curl -s "+base) {
				t.Fatalf("no token or curl line printed:\n%s", out)
			}
			ws := get(t, base+"/v2/workspace", token)
			if ws["page_count"].(float64) < 8 || ws["database_count"].(float64) != 1 {
				t.Fatalf("demo workspace = %v", ws)
			}
			for _, section := range []string{"mind_maps", "folders"} {
				if l := get(t, base+"/v2/workspace/pages/"+section, token); len(l["results"].([]any)) != 1 {
					t.Fatalf("section %s: %v", section, l)
				}
			}
			stop()
			base, out, stop = serveDemo()
			defer stop()
			if !strings.Contains(out, "nothing seeded") {
				t.Fatalf("second --demo on the same store:\n%s", out)
			}
			// It prints the command that makes a token for the demo workspace; that command works.
			line := regexp.MustCompile(`quire (token create --workspace \S+ --owner \S+ --name demo --scopes all --workspace-scoped.*)`).FindStringSubmatch(out)
			if line == nil {
				t.Fatalf("no token command printed:\n%s", out)
			}
			fresh := runJSON(t, strings.Fields(strings.ReplaceAll(line[1], "'", ""))...)["token"].(string)
			if me := get(t, base+"/v2/users/me", fresh); me["workspace_name"] != "Demo workspace" {
				t.Fatalf("the printed command's token: %v", me)
			}
		})
	}
}
