package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The crash test runs the real binary, built once per test binary run; TestMain removes it.
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func quireBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "quire-crash-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "quire")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func removeQuireBinary() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// process is one running `quire serve`.
type process struct {
	cmd    *exec.Cmd
	base   string
	stderr *syncBuffer
	exited chan struct{}
	err    error // what Wait returned, once exited is closed
}

// startProcess starts `quire serve` on a free port and waits until /readyz answers 200.
func startProcess(t *testing.T, bin string, storeArgs []string) *process {
	t.Helper()
	stdout := &syncBuffer{}
	p := &process{stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn"}, storeArgs...)...)
	p.cmd.Stdout, p.cmd.Stderr = stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	// A test that fails midway must not leave its server running.
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	// A loaded 2-core machine can take many seconds to start a process: be generous.
	deadline := time.Now().Add(90 * time.Second)
	for p.base == "" {
		if m := servingLine.FindStringSubmatch(stdout.String()); m != nil {
			p.base = m[1]
			break
		}
		select {
		case <-p.exited:
			t.Fatalf("quire serve exited at start: %v\n%s", p.err, p.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.kill(t)
			t.Fatalf("quire serve did not start\n%s", p.stderr.String())
		}
	}
	res, err := http.Get(p.base + "/readyz")
	if err != nil {
		t.Fatalf("GET /readyz: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Contains(body, []byte(`"ok"`)) {
		t.Fatalf("GET /readyz after restart = %d %s", res.StatusCode, body)
	}
	return p
}

// kill sends SIGKILL: no deferred function, no shutdown hook, no flush runs.
func (p *process) kill(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("quire serve had exited by itself before the kill: %v\n%s", p.err, p.stderr.String())
	default:
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	var ee *exec.ExitError
	if !errors.As(p.err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("quire serve ended with %v, not by the kill\n%s", p.err, p.stderr.String())
	}
}

// stop sends SIGTERM and expects a clean exit 0.
func (p *process) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(60 * time.Second):
		p.kill(t)
		t.Fatal("quire serve did not stop within 60 s of SIGTERM")
	}
	if p.err != nil {
		t.Fatalf("quire serve exited with %v after SIGTERM\n%s", p.err, p.stderr.String())
	}
}

// client sends API requests with one token. Each writer has its own connections.
type client struct {
	base, token string
	hc          *http.Client
}

func newClient(base, token string) *client {
	// The timeout only guards against a hung server; a killed one resets the connection.
	return &client{base: base, token: token, hc: &http.Client{Timeout: 60 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
}

// reply is a complete answer: status, ETag and the decoded JSON body.
type reply struct {
	status int
	etag   string
	obj    map[string]any
	raw    []byte
}

// errNoAnswer wraps a request that got no complete answer: the server died (or hung) first.
var errNoAnswer = errors.New("no answer")

func (c *client) call(method, path string, body any, ifMatch string) (*reply, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	return c.send(req)
}

// upload PUTs bytes to a signed upload URL (which needs no token).
func (c *client) upload(url string, data []byte) (*reply, error) {
	req, err := http.NewRequestWithContext(context.Background(), "PUT", url, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	return c.send(req)
}

func (c *client) send(req *http.Request) (*reply, error) {
	method, path := req.Method, req.URL.Path
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: %v", errNoAnswer, method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: reading the body: %v", errNoAnswer, method, path, err)
	}
	r := &reply{status: res.StatusCode, etag: res.Header.Get("ETag"), raw: raw}
	if res.Header.Get("Content-Type") != "application/json" {
		r.obj = map[string]any{}
	} else if err := json.Unmarshal(raw, &r.obj); err != nil {
		return nil, fmt.Errorf("%s %s: %d answer is not a JSON object: %q", method, path, res.StatusCode, raw)
	}
	if r.status/100 != 2 {
		return r, fmt.Errorf("%s %s answered %d: %s", method, path, r.status, raw)
	}
	return r, nil
}

func (c *client) close() { c.hc.CloseIdleConnections() }
