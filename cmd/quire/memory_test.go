package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

func TestParseMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64 // 0: an error
	}{
		{"1GiB", 1 << 30},
		{"512MiB", 512 << 20},
		{"65536KiB", 64 << 20},
		{"800000000", 800000000},
		{"800000000B", 800000000},
		{"2TiB", 2 << 40},
		{"off", math.MaxInt64},
		{"", 0},
		{"GiB", 0},
		{"1GB", 0},
		{"1.5GiB", 0},
		{"-1GiB", 0},
		{"+1GiB", 0},
		{" 1GiB", 0},
		{"OFF", 0},
		{"9999999TiB", 0}, // past int64
	} {
		got, err := parseMemoryLimit(tc.in)
		if tc.want == 0 && err == nil || tc.want != 0 && (err != nil || got != tc.want) {
			t.Errorf("parseMemoryLimit(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

// runtimeSettings reads the collector's limit and GOGC without changing them.
func runtimeSettings() (limit int64, gogc uint64) {
	s := []metrics.Sample{{Name: "/gc/gomemlimit:bytes"}, {Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), s[1].Value.Uint64()
}

// TestServe_MemorySettings: serve applies the limit and GOGC it chose from --memory-limit,
// QUIRE_MEMORY_LIMIT, GOMEMLIMIT and GOGC to the running process, says so in its startup line,
// and puts the process's settings back when it returns.
func TestServe_MemorySettings(t *testing.T) {
	_, gogcBefore := runtimeSettings()
	for _, tc := range []struct {
		name      string
		env       map[string]string
		args      []string
		wantLimit int64
		wantGOGC  uint64 // 0: the runtime's, unchanged
		wantLog   []any  // memory_limit, memory_limit_from, gogc as logged
	}{
		{"default", nil, nil, 1 << 30, 400, []any{float64(1 << 30), "default", "400"}},
		{"flag", nil, []string{"--memory-limit", "768MiB"}, 768 << 20, 400, []any{float64(768 << 20), "--memory-limit", "400"}},
		{"env", map[string]string{"QUIRE_MEMORY_LIMIT": "600MiB"}, nil, 600 << 20, 400, []any{float64(600 << 20), "--memory-limit", "400"}},
		{"flag over GOMEMLIMIT", map[string]string{"GOMEMLIMIT": "700MiB"}, []string{"--memory-limit", "900MiB"}, 900 << 20, 400, []any{float64(900 << 20), "--memory-limit", "400"}},
		// GOMEMLIMIT is honoured as the runtime takes it, even below the flag's minimum.
		{"GOMEMLIMIT", map[string]string{"GOMEMLIMIT": "32MiB"}, nil, 32 << 20, 400, []any{float64(32 << 20), "GOMEMLIMIT", "400"}},
		// GOGC set: the runtime applied it at start and serve keeps it.
		{"GOGC kept", map[string]string{"GOGC": "150"}, []string{"--memory-limit", "1GiB"}, 1 << 30, 0, []any{float64(1 << 30), "--memory-limit", "150"}},
		// No limit: Go's own defaults, GOGC included.
		{"off", nil, []string{"--memory-limit", "off"}, math.MaxInt64, 0, []any{"off", "--memory-limit", "100"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"QUIRE_MEMORY_LIMIT", "GOMEMLIMIT", "GOGC"} {
				t.Setenv(k, tc.env[k])
			}
			limit, gogc, line := serveSettings(t, tc.args...)
			if tc.wantGOGC == 0 {
				tc.wantGOGC = gogcBefore
			}
			if limit != tc.wantLimit || gogc != tc.wantGOGC {
				t.Errorf("while serving: limit %d, GOGC %d; want %d, %d", limit, gogc, tc.wantLimit, tc.wantGOGC)
			}
			if got := []any{line["memory_limit"], line["memory_limit_from"], line["gogc"]}; !equalAny(got, tc.wantLog) {
				t.Errorf("startup line has %v; want %v", got, tc.wantLog)
			}
			if limit, gogc := runtimeSettings(); limit != math.MaxInt64 || gogc != gogcBefore {
				t.Errorf("after serve returned: limit %d, GOGC %d; want the process's own back (%d, %d)", limit, gogc, int64(math.MaxInt64), gogcBefore)
			}
		})
	}
}

// serveSettings runs serve with args until it has logged its startup line, and returns the
// collector's settings while it ran and that line.
func serveSettings(t *testing.T, args ...string) (limit int64, gogc uint64, line map[string]any) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	// Not t.TempDir: serve's background sweeps may still touch the folder for a moment after it
	// returned, and TempDir's cleanup fails the test on a file that appears while it removes.
	data, err := os.MkdirTemp("", "quire-memory-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(data) })
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--access-log", "off", "--data", data}, args...), stdout, stderr)
	}()
	waitForURL(t, stdout, done)
	limit, gogc = runtimeSettings()
	for deadline := time.Now().Add(10 * time.Second); line == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		sc := bufio.NewScanner(strings.NewReader(stderr.String())) // the log is flushed every 100 ms
		for sc.Scan() {
			var l map[string]any
			if json.Unmarshal(sc.Bytes(), &l) == nil && l["msg"] == "quire serving" {
				line = l
			}
		}
	}
	if line == nil {
		t.Fatalf("no startup line in %q", stderr.String())
	}
	stopServe(t, cancel, done)
	return limit, gogc, line
}

// stopServe cancels an in-process serve and waits until it has returned nil.
func stopServe(t *testing.T, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func equalAny(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestServe_MemoryLimitErrors: a limit serve cannot use is refused before anything starts.
func TestServe_MemoryLimitErrors(t *testing.T) {
	for _, tc := range []struct {
		flag, env, want string
	}{
		{"1GB", "", `--memory-limit "1GB": want a size`},
		{"10MiB", "", `--memory-limit "10MiB": below 64MiB`},
		{"-1", "", "want a size"},
		{"", "lots", `--memory-limit "lots": want a size`}, // QUIRE_MEMORY_LIMIT
		{"", "", ""},
	} {
		t.Setenv("QUIRE_MEMORY_LIMIT", tc.env)
		t.Setenv("GOMEMLIMIT", "1MB") // not read when a limit is given; read (and refused) otherwise
		data := t.TempDir()
		args := []string{"serve", "--addr", "127.0.0.1:0", "--data", data}
		if tc.flag != "" {
			args = append(args, "--memory-limit", tc.flag)
		}
		err := run(context.Background(), args, io.Discard, io.Discard)
		want := tc.want
		if want == "" {
			want = `GOMEMLIMIT "1MB": want a size`
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("serve --memory-limit %q (QUIRE_MEMORY_LIMIT %q) = %v, want an error with %q", tc.flag, tc.env, err, want)
		}
		if left, _ := os.ReadDir(data); len(left) > 0 {
			t.Fatalf("serve --memory-limit %q made %s before refusing", tc.flag, left[0].Name())
		}
	}
}
