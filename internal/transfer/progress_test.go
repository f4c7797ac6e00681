package transfer

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// steps runs n steps of a progress, each every, on a clock of its own; after is called after
// step i.
func steps(tty bool, verb string, n int, every time.Duration, after func(p *Progress, i int)) *bytes.Buffer {
	var b bytes.Buffer
	p := NewProgress(&b, tty, verb)
	clock := time.Unix(1_800_000_000, 0)
	p.now = func() time.Time { return clock }
	p.start(n)
	for i := range n {
		clock = clock.Add(every)
		p.step()
		if after != nil {
			after(p, i)
		}
	}
	p.finish()
	return &b
}

// TestProgress_Plain checks the lines written where there is no terminal: the size of the
// work, a line at each tenth with counts, rate and time left, and problems as they come.
func TestProgress_Plain(t *testing.T) {
	b := steps(false, "import", 20, 500*time.Millisecond, func(p *Progress, i int) {
		if i == 4 {
			p.failed("Notes/Gone.md", "open Notes/Gone.md: no such file or directory")
		}
	})
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
	b := steps(true, "export", 4, time.Second, nil)
	out := b.String()
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "\r[####################] export: 4/4 (100%), 1.0/s, 0s left\x1b[K\n") {
		t.Fatalf("terminal output = %q", out)
	}
	if !strings.Contains(out, "\r[#####               ] export: 1/4 (25%)") {
		t.Fatalf("no bar at 25%%: %q", out)
	}
}
