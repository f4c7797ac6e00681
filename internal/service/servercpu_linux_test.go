package service_test

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// serverCPU is the CPU time so far of the PostgreSQL server at dbURL, a cluster on this machine
// (testdb's): its postmaster, found by the port it listens on, and every process it started,
// read from /proc. ok is false when no such server runs here.
func serverCPU(dbURL string) (d time.Duration, ok bool) {
	u, err := url.Parse(dbURL)
	if err != nil || u.Port() == "" {
		return 0, false
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	type proc struct {
		ppid  string
		ticks int64
	}
	all := map[string]proc{}
	master := ""
	for _, dir := range procs {
		stat, err := os.ReadFile(dir + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis: state ppid … utime (14) stime (15).
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		pid := filepath.Base(dir)
		all[pid] = proc{ppid: f[1], ticks: ut + st}
		if master == "" {
			cmd, _ := os.ReadFile(dir + "/cmdline")
			args := strings.Split(string(cmd), "\x00")
			if len(args) > 0 && filepath.Base(args[0]) == "postgres" && strings.Contains(string(cmd), "\x00-p\x00"+u.Port()+"\x00") {
				master = pid
			}
		}
	}
	if master == "" {
		return 0, false
	}
	var ticks int64
	for pid, p := range all {
		if pid == master || p.ppid == master {
			ticks += p.ticks
		}
	}
	return time.Duration(ticks) * time.Second / 100, true // USER_HZ is 100 on Linux
}
