package main

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// The collector's settings for quire serve (docs/performance.md, "the collector's memory
// bound"). Go's default (GOGC 100, no limit) collects whenever the heap has doubled since the
// last collection; a page GET's live heap is a few MiB, so under load the collector ran every
// few thousand requests and took about a sixth of the server's CPU. Below a stated limit the
// collector may let the heap grow to five times what is live (GOGC 400); near the limit it
// collects as often as it must to stay under it. The limit, not the percent, is the bound an
// operator plans with.
const (
	// defaultMemoryLimit is the soft limit of the Go runtime's memory when neither
	// --memory-limit, QUIRE_MEMORY_LIMIT nor GOMEMLIMIT says otherwise: measured at the speed
	// table's data under mixed load, the server's Go memory stayed far below it (figures in
	// docs/performance.md), so it bounds a burst without costing a steady server anything.
	defaultMemoryLimit = 1 << 30
	// gcPercentUnderLimit is GOGC while a limit is in force and GOGC is not set.
	gcPercentUnderLimit = 400
	// minMemoryLimit refuses limits so small that the collector would run without pause: the
	// vector and mind-map caches and the embedding model alone can hold more.
	minMemoryLimit = 64 << 20
)

// memorySettings are the collector's settings serve runs with.
type memorySettings struct {
	limit  int64  // bytes; math.MaxInt64 = no limit
	source string // what chose the limit: --memory-limit (or QUIRE_MEMORY_LIMIT), GOMEMLIMIT, default
	// gcPercent is set when serve chooses GOGC; 0 leaves the runtime's (GOGC set, or no limit).
	gcPercent int
}

// resolveMemory decides the settings from --memory-limit's value (flag or QUIRE_MEMORY_LIMIT;
// "" when neither is given), then GOMEMLIMIT and GOGC, without applying them.
func resolveMemory(value string) (memorySettings, error) {
	m := memorySettings{source: "--memory-limit"}
	v := value
	if v == "" {
		v, m.source = os.Getenv("GOMEMLIMIT"), "GOMEMLIMIT"
	}
	if v == "" {
		m.limit, m.source = defaultMemoryLimit, "default"
	} else {
		limit, err := parseMemoryLimit(v)
		if err == nil && m.source != "GOMEMLIMIT" && limit < minMemoryLimit {
			// GOMEMLIMIT, which the runtime accepted, is taken as it is.
			err = fmt.Errorf("below %dMiB the collector would run without pause; want at least that, or off", minMemoryLimit>>20)
		}
		if err != nil {
			return m, fmt.Errorf("%s %q: %w", m.source, v, err)
		}
		m.limit = limit
	}
	if os.Getenv("GOGC") == "" && m.limit != math.MaxInt64 {
		m.gcPercent = gcPercentUnderLimit // GOGC, when set, was applied by the runtime and is kept
	}
	return m, nil
}

// apply sets the runtime's limit and percent, and returns what puts the previous ones back (an
// in-process serve, as in the tests, leaves the process as it found it).
func (m memorySettings) apply() (restore func()) {
	prevLimit := debug.SetMemoryLimit(m.limit)
	if m.gcPercent == 0 {
		return func() { debug.SetMemoryLimit(prevLimit) }
	}
	prevPercent := debug.SetGCPercent(m.gcPercent)
	return func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}
}

// logAttrs are the settings as the startup line shows them: the limit in bytes or "off", GOGC
// as the collector runs it.
func (m memorySettings) logAttrs() []any {
	var limit any = m.limit
	if m.limit == math.MaxInt64 {
		limit = "off"
	}
	gogc := strconv.Itoa(m.gcPercent)
	if m.gcPercent == 0 {
		gogc = cmp.Or(os.Getenv("GOGC"), "100")
	}
	return []any{"memory_limit", limit, "memory_limit_from", m.source, "gogc", gogc}
}

// memoryUnits are GOMEMLIMIT's suffixes, longest first so "MiB" is not read as "B".
var memoryUnits = []struct {
	suffix string
	shift  uint
}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}, {"B", 0}}

// parseMemoryLimit reads a limit in GOMEMLIMIT's syntax (a whole number of bytes, optionally
// followed by B, KiB, MiB, GiB or TiB), or "off" for no limit.
func parseMemoryLimit(s string) (int64, error) {
	if s == "off" {
		return math.MaxInt64, nil
	}
	num, shift := s, uint(0)
	for _, u := range memoryUnits {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, shift = n, u.shift
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 63)
	if err != nil || num == "" || num[0] < '0' || num[0] > '9' {
		return 0, errors.New("want a size such as 1GiB, 512MiB or 800000000, or off")
	}
	if n > math.MaxInt64>>shift {
		return 0, errors.New("too large")
	}
	return int64(n) << shift, nil
}
