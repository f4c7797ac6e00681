package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// quireServer is a running "quire serve" child process.
type quireServer struct {
	cmd    *exec.Cmd
	url    string        // http://127.0.0.1:PORT
	exited chan struct{} // closed when the process has ended
	err    error         // what Wait returned, once exited is closed
	stderr *tailBuffer   // the end of its log, for error messages
}

// buildQuire compiles ./cmd/quire of the module the working folder belongs to into dir.
func buildQuire(ctx context.Context, dir string) (string, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "quire")
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/quire")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/quire: %v\n%s", err, out)
	}
	return bin, nil
}

// moduleRoot is the folder of the go.mod that governs the working folder.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the quire module: run from the repository root")
	}
	return filepath.Dir(gomod), nil
}

// childEnv is this process's environment without QUIRE_* variables: the run is defined by the
// flags quire-bench passes, not by whatever the shell has set.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "QUIRE_") {
			env = append(env, kv)
		}
	}
	return env
}

// startQuire starts "quire serve" on a loopback port of the kernel's choice (--addr
// 127.0.0.1:0) and learns the port from the line the server prints once it listens, so that no
// other listener can take the port in between. Cancelling ctx asks the server to stop; stop
// must be called in any case.
func startQuire(ctx context.Context, bin string, store []string, logLevel string) (*quireServer, error) {
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", logLevel, "--rate-limit", "0"}, store...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = childEnv()
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	watch := &urlWatcher{found: make(chan string, 1)}
	q := &quireServer{cmd: cmd, exited: make(chan struct{}), stderr: &tailBuffer{max: 8 << 10}}
	cmd.Stdout, cmd.Stderr = watch, q.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start quire serve: %w", err)
	}
	go func() {
		q.err = cmd.Wait()
		close(q.exited)
	}()
	select {
	case q.url = <-watch.found:
		return q, nil
	case <-q.exited:
		return q, q.diedError()
	case <-ctx.Done():
		return q, ctx.Err()
	case <-time.After(20 * time.Second):
		return q, fmt.Errorf("quire serve printed no \"serving http://…\" line within 20 s\n%s", q.stderr)
	}
}

// servingURL finds the base URL in quire serve's "quire: serving http://ADDR/v2 …" line.
var servingURL = regexp.MustCompile(`serving (http://[^/\s]+)/`)

// urlWatcher is quire serve's stdout: it sends the base URL the server announces on found,
// once, and discards the rest.
type urlWatcher struct {
	mu    sync.Mutex
	buf   []byte
	found chan string
	done  bool
}

func (u *urlWatcher) Write(p []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.done {
		return len(p), nil
	}
	u.buf = append(u.buf, p...)
	if m := servingURL.FindSubmatch(u.buf); m != nil {
		u.found <- string(m[1])
		u.done, u.buf = true, nil
	}
	return len(p), nil
}

// stop ends the server: SIGTERM, then SIGKILL if it has not exited within 5 seconds.
func (q *quireServer) stop() {
	select {
	case <-q.exited:
		return
	default:
	}
	_ = q.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-q.exited:
	case <-time.After(5 * time.Second):
		_ = q.cmd.Process.Kill()
		<-q.exited
	}
}

// diedError describes a server that ended on its own, with the end of its log.
func (q *quireServer) diedError() error {
	return fmt.Errorf("quire serve exited: %v\n%s", q.err, q.stderr.String())
}

// tailBuffer keeps the last max bytes written to it. A busy server logs megabytes; only the
// end matters when it fails.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
