package transfer

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgress_Plain checks the lines written where there is no terminal: the size of the
// work, a line at each tenth with counts, rate and time left, and problems as they come.
func TestProgress_Plain(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, false, "import")
	clock := time.Unix(1_800_000_000, 0)
	p.now = func() time.Time { return clock }
	p.start(20)
	for i := range 20 {
		clock = clock.Add(500 * time.Millisecond)
		p.step()
		if i == 4 {
			p.failed("Notes/Gone.md", "open Notes/Gone.md: no such file or directory")
		}
	}
	p.finish()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		"import: 20 items",
		"import: 2/20 (10%), 2.0/s, 9s left",
		"import: 4/20 (20%), 2.0/s, 8s left",
		"import: Notes/Gone.md: open Notes/Gone.md: no such file or directory",
		"import: 6/20 (30%), 2.0/s, 7s left",
	}
	if len(lines) != 12 {
		t.Fatalf("%d lines, want 12:\n%s", len(lines), b.String())
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d = %q, want %q", i, lines[i], w)
		}
	}
	if last := lines[len(lines)-1]; last != "import: 20/20 (100%), 2.0/s, 0s left" {
		t.Errorf("last line = %q", last)
	}
	if strings.Contains(b.String(), "\r") || strings.Contains(b.String(), "\x1b") {
		t.Error("plain mode wrote terminal controls")
	}
}

// TestProgress_Terminal checks that a terminal gets one redrawn line with a bar.
func TestProgress_Terminal(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, true, "export")
	clock := time.Unix(1_800_000_000, 0)
	p.now = func() time.Time { return clock }
	p.start(4)
	for range 4 {
		clock = clock.Add(time.Second)
		p.step()
	}
	p.finish()
	out := b.String()
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "\r[####################] export: 4/4 (100%), 1.0/s, 0s left\x1b[K\n") {
		t.Fatalf("terminal output = %q", out)
	}
	if !strings.Contains(out, "\r[#####               ] export: 1/4 (25%)") {
		t.Fatalf("no bar at 25%%: %q", out)
	}
}
