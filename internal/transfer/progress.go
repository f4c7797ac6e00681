package transfer

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Progress shows how far an import or export is. On a terminal it redraws one line: a bar,
// the counts, the rate and the time left. Elsewhere (a log, a pipe) it writes a plain line at
// every tenth of the work, so a log gets ten lines, not one per page. Problems are written as
// they happen, in both modes. A nil *Progress shows nothing.
type Progress struct {
	w        io.Writer
	tty      bool
	verb     string
	now      func() time.Time
	total    int
	done     int
	began    time.Time
	lastTick int // the last tenth written (plain mode)
	lastDraw time.Time
}

// NewProgress writes the progress of verb ("import", "export") to w; tty selects the redrawn bar.
func NewProgress(w io.Writer, tty bool, verb string) *Progress {
	return &Progress{w: w, tty: tty, verb: verb, now: time.Now}
}

func (p *Progress) start(total int) {
	if p == nil {
		return
	}
	p.total, p.done, p.began, p.lastTick = total, 0, p.now(), 0
	if !p.tty {
		fmt.Fprintf(p.w, "%s: %d items\n", p.verb, total)
	}
}

func (p *Progress) step() {
	if p == nil {
		return
	}
	p.done++
	if p.tty {
		if t := p.now(); p.done == p.total || t.Sub(p.lastDraw) >= 100*time.Millisecond {
			p.lastDraw = t
			fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(true))
		}
		return
	}
	if p.total > 0 {
		if tick := p.done * 10 / p.total; tick > p.lastTick {
			p.lastTick = tick
			fmt.Fprintf(p.w, "%s\n", p.line(false))
		}
	}
}

func (p *Progress) failed(path, why string) {
	if p == nil {
		return
	}
	if p.tty {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	fmt.Fprintf(p.w, "%s: %s: %s\n", p.verb, path, why)
}

// finish ends the bar's line.
func (p *Progress) finish() {
	if p != nil && p.tty {
		fmt.Fprintln(p.w)
	}
}

// line is "[#####     ] 12/40 (30%), 3.1/s, 9s left".
func (p *Progress) line(bar bool) string {
	elapsed := p.now().Sub(p.began).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.done) / elapsed
	}
	pct := 100
	if p.total > p.done {
		pct = p.done * 100 / p.total
	}
	left := "0s"
	if rate > 0 && p.total > p.done {
		left = time.Duration(float64(p.total-p.done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	s := fmt.Sprintf("%s: %d/%d (%d%%), %.1f/s, %s left", p.verb, p.done, p.total, pct, rate, left)
	if bar {
		full := pct / 5
		s = "[" + strings.Repeat("#", full) + strings.Repeat(" ", 20-full) + "] " + s
	}
	return s
}
