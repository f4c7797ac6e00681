package clients_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// The two commands of README's "Generating a client", run in a copy of ts/ and go/ with the
// served document's URL appended.
var (
	tsGenerate = []string{"npx", "openapi-typescript", "-o", "schema.d.ts"}
	goGenerate = []string{"go", "tool", "oapi-codegen", "-config", "oapi-codegen.yaml"}
)

// TestGeneratedClients generates both clients from a served document, type-checks their
// tours (a document change that breaks a typed call fails here), and runs them against a
// server on each engine.
func TestGeneratedClients(t *testing.T) {
	if os.Getenv("QUIRE_TEST_CLIENTS") == "" {
		t.Skip("QUIRE_TEST_CLIENTS unset: generating clients needs node, npm and the npm registry (.ci/run sets it)")
	}
	for _, tool := range []string{"node", "npm", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("QUIRE_TEST_CLIENTS is set but %s is not on PATH", tool)
		}
	}
	work := t.TempDir()
	bin := filepath.Join(work, "quire")
	run(t, "..", nil, "go", "build", "-o", bin, "./cmd/quire")

	sqlite := startServer(t, bin, "--data", filepath.Join(work, "data"))
	docURL := sqlite.base + "/v2/openapi.json"

	// Both clients are generated and compiled at once: npm and the Go toolchain wait on
	// different things (the registry, the compiler).
	tsDir, goDir := filepath.Join(work, "ts"), filepath.Join(work, "go")
	goTour := filepath.Join(work, "go-tour")
	var wg sync.WaitGroup
	errs := make([]string, 2)
	wg.Go(func() {
		copyTree(t, "ts", tsDir, "node_modules", "dist", "schema.d.ts")
		errs[0] = try(tsDir, nil, "npm", "ci", "--no-audit", "--no-fund", "--prefer-offline")
		errs[0] += try(tsDir, nil, append(tsGenerate, docURL)...)
		errs[0] += try(tsDir, nil, "npx", "tsc", "-p", ".") // type-checks, then writes dist/tour.js
	})
	wg.Go(func() {
		copyTree(t, "go", goDir, "quireapi")
		errs[1] = try(goDir, goEnv, append(goGenerate, docURL)...)
		errs[1] += try(goDir, goEnv, "go", "build", "-o", goTour, "./tour")
	})
	wg.Wait()
	if msg := strings.Join(errs, ""); msg != "" {
		t.Fatalf("generating and type-checking the clients:\n%s", msg)
	}

	tours := func(t *testing.T, s *server) {
		env := []string{"QUIRE_URL=" + s.base, "QUIRE_TOKEN=" + s.token}
		if out := run(t, tsDir, env, "node", "dist/tour.js"); !strings.Contains(out, "tour ok") {
			t.Fatalf("TypeScript tour: %s", out)
		}
		if out := run(t, goDir, env, goTour); !strings.Contains(out, "tour ok") {
			t.Fatalf("Go tour: %s", out)
		}
	}
	t.Run("sqlite", func(t *testing.T) { tours(t, sqlite) })
	t.Run("postgres", func(t *testing.T) {
		tours(t, startServer(t, bin, "--database-url", testdb.PostgresURL(t), "--data", t.TempDir()))
	})
}

// goEnv keeps the nested module on its own go.mod and go.sum, whatever the caller's GOFLAGS.
var goEnv = []string{"GOWORK=off", "GOFLAGS=-mod=readonly"}

// server is a `quire serve` process on a fresh store with a workspace-scoped token.
type server struct {
	base  string
	token string
}

var servingLine = regexp.MustCompile(`serving (http://\S+)/v2`)

// startServer creates a workspace, a person and an all-scopes token on the store storeArgs
// name, then serves it on a free port until the test ends. (Uploads live under --data on
// either engine.)
func startServer(t *testing.T, bin string, storeArgs ...string) *server {
	t.Helper()
	work := t.TempDir() // the working directory, so that nothing lands beside the sources
	admin := func(args ...string) map[string]any {
		var out map[string]any
		if err := json.Unmarshal([]byte(run(t, work, nil, bin, append(args, storeArgs...)...)), &out); err != nil {
			t.Fatalf("quire %s: %v", args[0], err)
		}
		return out
	}
	ws := admin("workspace", "create", "--name", "Acme", "--create")["id"].(string)
	me := admin("user", "create", "--workspace", ws, "--name", "Ada Lovelace", "--email", "ada@example.com")["id"].(string)
	token := admin("token", "create", "--workspace", ws, "--owner", me, "--name", "tour", "--scopes", "all", "--workspace-scoped")["token"].(string)

	stderr, err := os.Create(filepath.Join(work, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--access-log", "off", "--log-level", "warn"}, storeArgs...)...)
	cmd.Dir, cmd.Stderr = work, stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// One goroutine reads stdout to its end, and only then waits for the process, as
	// StdoutPipe requires; it hands over the address from the "serving" line.
	base, exited := make(chan string, 1), make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				base <- m[1]
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); <-exited })
	log := func() string { b, _ := os.ReadFile(stderr.Name()); return string(b) }
	select {
	case u := <-base:
		return &server{base: u, token: token}
	case <-exited:
		t.Fatalf("quire serve exited at start:\n%s", log())
	case <-time.After(90 * time.Second): // a loaded 2-core machine starts slowly
		t.Fatalf("quire serve did not start:\n%s", log())
	}
	return nil
}

// run runs a command in dir with env added, failing the test with its output if it fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if msg := runTo(&out, dir, env, name, args...); msg != "" {
		t.Fatal(msg)
	}
	return out.String()
}

// try runs a command and answers "" or what went wrong, with its output; it is safe to call
// from a goroutine, where t.Fatal is not.
func try(dir string, env []string, args ...string) string {
	return runTo(io.Discard, dir, env, args[0], args[1:]...)
}

func runTo(w io.Writer, dir string, env []string, name string, args ...string) string {
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, io.MultiWriter(&out, w), &out
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Run(); err != nil {
		return strings.Join(append([]string{name}, args...), " ") + ": " + err.Error() + "\n" + out.String() + "\n"
	}
	return ""
}

// copyTree copies the files under src to dst, leaving out the generated and installed
// names skip (a developer's earlier run may have left them beside the sources).
func copyTree(t *testing.T, src, dst string, skip ...string) {
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		for _, s := range skip {
			if rel == s {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Error(err) // Error, not Fatal: copyTree runs in a goroutine
	}
}
