// Package pgcluster starts a throwaway PostgreSQL server in a temp folder with the machine's
// initdb and pg_ctl, listening on loopback only. The tests (internal/testdb) and the load
// benchmark (cmd/quire-bench) use it so that PostgreSQL needs no set-up by hand.
package pgcluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// Cluster is a running throwaway server; Stop removes it with its data.
type Cluster struct {
	dir    string
	pgCtl  string
	asUser string // "postgres" when we are root: initdb refuses to run as root
	url    string
}

// Options choose how the server trades safety for speed.
type Options struct {
	// Durable keeps PostgreSQL's defaults (fsync, synchronous_commit, full_page_writes on), as a
	// production server runs. Off, every flush is skipped: tests need no crash safety.
	Durable bool
	// Settings are extra "-c name=value" server settings.
	Settings []string
}

// Bin finds a PostgreSQL server program on PATH or in Debian's versioned folders.
func Bin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(matches) > 0 {
		return matches[len(matches)-1], nil
	}
	return "", fmt.Errorf("%s not found (install PostgreSQL server binaries or give a database URL)", name)
}

// Start initialises and starts a cluster whose superuser "postgres" connects without password.
func Start(opt Options) (*Cluster, error) {
	initdb, err := Bin("initdb")
	if err != nil {
		return nil, err
	}
	pgCtl, err := Bin("pg_ctl")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "quire-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, pgCtl: pgCtl}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, errors.New("running as root and there is no postgres user to run initdb as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		c.asUser = "postgres"
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if out, err := c.run(initdb, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "-D", data); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=400", port, dir)
	if !opt.Durable {
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	for _, s := range opt.Settings {
		opts += " -c " + s
	}
	if out, err := c.run(pgCtl, "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "-t", "60", "start"); err != nil {
		return nil, fmt.Errorf("pg_ctl start: %v: %s", err, out)
	}
	c.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return c, nil
}

// URL connects to the maintenance database "postgres" as the superuser.
func (c *Cluster) URL() string { return c.url }

// run runs a server program, as the postgres user when we are root.
func (c *Cluster) run(prog string, args ...string) (string, error) {
	var cmd *exec.Cmd
	if c.asUser != "" {
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		cmd = exec.Command("su", c.asUser, "-s", "/bin/sh", "-c", prog+" "+strings.Join(quoted, " "))
	} else {
		cmd = exec.Command(prog, args...)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Stop ends the server at once and deletes its folder.
func (c *Cluster) Stop() {
	_, _ = c.run(c.pgCtl, "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	_ = os.RemoveAll(c.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
