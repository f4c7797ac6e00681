package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// wrkResult is what one load run reports (wrk's or the built-in generator's).
type wrkResult struct {
	rps      float64       // Requests/sec
	p50, p99 time.Duration // from the latency distribution
	non2xx   int64         // "Non-2xx or 3xx responses"
	sockErrs string        // the "Socket errors" line, if any
	requests int64         // answered requests
	bytes    float64       // bytes read, headers included
}

// meanBytes is the mean size of one answer, headers included.
func (r wrkResult) meanBytes() float64 {
	if r.requests == 0 {
		return 0
	}
	return r.bytes / float64(r.requests)
}

// wrkRun is one wrk invocation: a Lua script (see luaScript) chooses the requests.
type wrkRun struct {
	prog     string
	url      string // base URL; the script gives the paths
	script   string
	conns    int
	duration time.Duration
}

// args is wrk's command line: threads = min(conns, 2), latency distribution on. The timeout
// is long: wrk leaves a request slower than its timeout (2 s by default) out of the latency
// distribution, which on a busy machine would hide the slowest answers from p99.
func (w wrkRun) args() []string {
	secs := int(w.duration / time.Second)
	return []string{"-t", strconv.Itoa(min(w.conns, 2)), "-c", strconv.Itoa(w.conns),
		"-d", strconv.Itoa(secs) + "s", "--timeout", "60s", "--latency", "-s", w.script, w.url}
}

// errNoneFinished is a load run in which no request finished: on a machine this busy, every
// request took longer than the run.
var errNoneFinished = errors.New("no request finished within the run")

// run executes wrk and parses its report. Any non-2xx answer is an error: the figures would
// then measure the error path.
func (w wrkRun) run(ctx context.Context) (wrkResult, error) {
	ctx, cancel := context.WithTimeout(ctx, w.duration+30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, w.prog, w.args()...).CombinedOutput()
	if err != nil {
		return wrkResult{}, fmt.Errorf("wrk %s: %v\n%s", w.url, err, out)
	}
	res, err := parseWrk(string(out))
	if err != nil && res.requests == 0 && strings.Contains(string(out), " 0 requests in ") {
		return res, errNoneFinished
	}
	if err != nil {
		return res, fmt.Errorf("wrk %s: %v\n%s", w.url, err, out)
	}
	if res.non2xx > 0 {
		return res, fmt.Errorf("wrk %s: %d answers were not 2xx/3xx\n%s", w.url, res.non2xx, out)
	}
	return res, nil
}

// parseWrk reads the report wrk --latency prints.
func parseWrk(out string) (wrkResult, error) {
	var r wrkResult
	var err error
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() && err == nil {
		line := strings.TrimSpace(sc.Text())
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "Requests/sec:") && len(f) == 2:
			r.rps, err = strconv.ParseFloat(f[1], 64)
		case strings.HasPrefix(line, "50%") && len(f) == 2:
			r.p50, err = parseWrkTime(f[1])
		case strings.HasPrefix(line, "99%") && len(f) == 2:
			r.p99, err = parseWrkTime(f[1])
		case strings.HasPrefix(line, "Non-2xx or 3xx responses:") && len(f) == 5:
			r.non2xx, err = strconv.ParseInt(f[4], 10, 64)
		case strings.HasPrefix(line, "Socket errors:"):
			r.sockErrs = line
		case len(f) == 6 && f[1] == "requests" && f[2] == "in" && f[5] == "read":
			if r.requests, err = strconv.ParseInt(f[0], 10, 64); err == nil {
				r.bytes, err = parseWrkBytes(f[4])
			}
		}
	}
	if err != nil {
		return r, err
	}
	if r.rps == 0 || r.p50 == 0 || r.p99 == 0 {
		return r, fmt.Errorf("no Requests/sec or latency distribution in wrk's output")
	}
	return r, nil
}

// wrkUnits are the time units wrk prints, longest suffix first so "ms" is not read as "s".
var wrkUnits = []struct {
	suffix string
	unit   time.Duration
}{{"us", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}}

// parseWrkTime reads a wrk latency such as "38.00us", "1.25ms" or "2.01s".
func parseWrkTime(s string) (time.Duration, error) {
	for _, u := range wrkUnits {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, fmt.Errorf("latency %q: %v", s, err)
			}
			return time.Duration(math.Round(v * float64(u.unit))), nil
		}
	}
	return 0, fmt.Errorf("latency %q has no unit", s)
}

// parseWrkBytes reads a size as wrk prints it: "37.24MB", "512.00B" (binary units).
func parseWrkBytes(s string) (float64, error) {
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"TB", 1 << 40}, {"B", 1}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, fmt.Errorf("size %q: %v", s, err)
			}
			return v * u.mult, nil
		}
	}
	return 0, fmt.Errorf("size %q has no unit", s)
}

// wrkVersion is the first line of "wrk -v" without its copyright, for the report's header.
func wrkVersion(ctx context.Context, prog string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, prog, "-v").CombinedOutput()
	line, _, _ := strings.Cut(string(out), "\n")
	line, _, _ = strings.Cut(line, " Copyright")
	return strings.TrimSpace(line)
}
