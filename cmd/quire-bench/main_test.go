package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseFlags_KeepStore: --keep-store is refused unless it can keep a new SQLite folder.
func TestParseFlags_KeepStore(t *testing.T) {
	existing := t.TempDir()
	fresh := filepath.Join(t.TempDir(), "kept")
	for _, tc := range []struct {
		name string
		args []string
		ok   bool
	}{
		{"speed on sqlite, new folder", []string{"--scenario", "speed", "--keep-store", fresh}, true},
		{"load scenario", []string{"--keep-store", fresh}, false},
		{"postgres on a throwaway cluster", []string{"--scenario", "speed", "--engine", "postgres", "--keep-store", fresh}, false},
		{"postgres on a server", []string{"--scenario", "speed", "--database-url", "postgres://u@127.0.0.1:1/db", "--keep-store", fresh}, true},
		{"both engines", []string{"--scenario", "speed", "--engine", "sqlite,postgres", "--keep-store", fresh}, false},
		{"folder exists", []string{"--scenario", "speed", "--keep-store", existing}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			cfg, _, err := parseFlags(tc.args, &stderr)
			if (err == nil) != tc.ok {
				t.Fatalf("parseFlags(%q) = %v, want ok=%v; stderr %q", tc.args, err, tc.ok, stderr.String())
			}
			if tc.ok && cfg.keepStore != fresh {
				t.Fatalf("keepStore = %q", cfg.keepStore)
			}
			if !tc.ok && !strings.Contains(stderr.String(), "--keep-store") {
				t.Fatalf("the refusal does not name --keep-store: %q", stderr.String())
			}
		})
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatalf("parsing created %s", fresh)
	}
}

// TestParseFlags_Repeat: --repeat is 3 unless given, and below 1 is refused.
func TestParseFlags_Repeat(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int // 0: refused
	}{
		{[]string{"--scenario", "speed"}, 3},
		{[]string{"--scenario", "speed", "--repeat", "1"}, 1},
		{[]string{"--scenario", "speed", "--repeat", "5"}, 5},
		{[]string{"--scenario", "speed", "--repeat", "0"}, 0},
		{[]string{"--scenario", "speed", "--repeat", "-2"}, 0},
	} {
		var stderr strings.Builder
		cfg, _, err := parseFlags(tc.args, &stderr)
		if tc.want == 0 {
			if err == nil || !strings.Contains(stderr.String(), "--repeat") {
				t.Errorf("parseFlags(%q) = %v, stderr %q; want a refusal naming --repeat", tc.args, err, stderr.String())
			}
			continue
		}
		if err != nil || cfg.repeat != tc.want {
			t.Errorf("parseFlags(%q): repeat %d, %v; want %d", tc.args, cfg.repeat, err, tc.want)
		}
	}
}
