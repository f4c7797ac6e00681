package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// childEnv, when set, makes this test binary be `quire` itself (see TestMain): the servers of
// the several-servers tests run as separate processes, sharing only the database and what
// their flags name, as on separate machines. Servers started with run() in this process would
// share its memory (package variables, the built-in model) and could hide what a second
// process does not have.
const childEnv = "QUIRE_TEST_BE_QUIRE"

// server is one `quire serve` process.
type server struct {
	name   string
	base   string // http://127.0.0.1:PORT
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan error
}

// startServers starts a `quire serve` process per name, all at once, with the flags args(name);
// waits until each announces its address; and stops them (SIGINT, expecting exit status 0)
// when t ends.
func startServers(t *testing.T, args func(name string) []string, names ...string) []*server {
	t.Helper()
	var servers []*server
	var lines []chan string
	for _, name := range names {
		s := &server{name: name, stderr: &syncBuffer{}, done: make(chan error, 1)}
		s.cmd = exec.Command(os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn"}, args(name)...)...)
		s.cmd.Env = append(os.Environ(), childEnv+"=1")
		s.cmd.Stderr = s.stderr
		stdout, err := s.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.cmd.Start(); err != nil {
			t.Fatalf("start server %s: %v", name, err)
		}
		line := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
					line <- m[1]
				}
			}
			s.done <- s.cmd.Wait()
		}()
		servers, lines = append(servers, s), append(lines, line)
		t.Cleanup(func() { s.stop(t) })
	}
	for i, s := range servers {
		s.waitBase(t, lines[i])
	}
	return servers
}

func (s *server) waitBase(t *testing.T, lines chan string) {
	t.Helper()
	select {
	case s.base = <-lines:
	case err := <-s.done:
		t.Fatalf("server %s exited before serving: %v\n%s", s.name, err, s.stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("server %s did not start\n%s", s.name, s.stderr.String())
	}
}

// stop ends the server as an orchestrator would and checks that it exits cleanly.
func (s *server) stop(t *testing.T) {
	_ = s.cmd.Process.Signal(os.Interrupt) // an error means it has exited already
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("server %s exited with %v\n%s", s.name, err, s.stderr.String())
		}
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		t.Errorf("server %s did not stop on SIGINT", s.name)
	}
	if t.Failed() && s.stderr.String() != "" {
		t.Logf("server %s log:\n%s", s.name, s.stderr.String())
	}
}

// answer is one HTTP answer of a several-servers test.
type answer struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// do sends a request to the server; body is sent as is when a string, else as JSON. hdr are
// header name/value pairs.
func (s *server) do(t *testing.T, method, path, token string, body any, hdr ...string) answer {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	u := path
	if strings.HasPrefix(path, "/") {
		u = s.base + path
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s on %s: %v", method, path, s.name, err)
	}
	defer res.Body.Close()
	r := answer{status: res.StatusCode, header: res.Header}
	if r.raw, err = io.ReadAll(res.Body); err != nil {
		t.Fatalf("%s %s on %s: reading the answer: %v", method, path, s.name, err)
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(r.raw, &r.body)
	}
	return r
}

// ok is do that expects 200.
func (s *server) ok(t *testing.T, method, path, token string, body any, hdr ...string) answer {
	t.Helper()
	r := s.do(t, method, path, token, body, hdr...)
	if r.status != http.StatusOK {
		t.Fatalf("%s %s on %s: %d %s", method, path, s.name, r.status, r.raw)
	}
	return r
}

// dig walks decoded JSON by object keys and array indexes; a missing step gives nil.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func str(v any, path ...any) string {
	s, _ := dig(v, path...).(string)
	return s
}

// results returns the ids of a list answer's results.
func results(body map[string]any) []string {
	var ids []string
	for _, r := range dig(body, "results").([]any) {
		ids = append(ids, str(r, "id"))
	}
	return ids
}

// both runs fa and fb at once, released together, and waits for them.
func both(fa, fb func()) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, f := range []func(){fa, fb} {
		wg.Go(func() {
			<-start
			f()
		})
	}
	close(start)
	wg.Wait()
}

// titleBody is a page creation body with a title (under parent when set) and paragraphs.
func titleBody(parent, title string, paragraphs ...string) map[string]any {
	b := map[string]any{"properties": map[string]any{"title": richText(title)}}
	if parent != "" {
		b["parent"] = map[string]any{"page_id": parent}
	}
	if len(paragraphs) > 0 {
		b["children"] = paragraphBlocks(paragraphs...)
	}
	return b
}

func richText(s string) []any { return []any{map[string]any{"text": map[string]any{"content": s}}} }

func paragraphBlocks(texts ...string) []any {
	var out []any
	for _, s := range texts {
		out = append(out, map[string]any{"type": "paragraph", "paragraph": map[string]any{"rich_text": richText(s)}})
	}
	return out
}

func seq(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s %d", prefix, i+1)
	}
	return out
}
