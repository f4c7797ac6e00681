package testdb

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

// cluster is a throwaway PostgreSQL server in a temp folder, listening on loopback only.
type cluster struct {
	dir    string
	pgCtl  string
	asUser string // "postgres" when we are root: initdb refuses to run as root
	url    string
}

// pgBin finds a PostgreSQL server program on PATH or in Debian's versioned folders.
func pgBin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(matches) > 0 {
		return matches[len(matches)-1], nil
	}
	return "", fmt.Errorf("%s not found (install PostgreSQL server binaries or set QUIRE_TEST_DATABASE_URL)", name)
}

func startCluster() (*cluster, error) {
	initdb, err := pgBin("initdb")
	if err != nil {
		return nil, err
	}
	pgCtl, err := pgBin("pg_ctl")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "quire-pg-")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, pgCtl: pgCtl}
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
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400", port, dir)
	if out, err := c.run(pgCtl, "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "-t", "60", "start"); err != nil {
		return nil, fmt.Errorf("pg_ctl start: %v: %s", err, out)
	}
	c.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return c, nil
}

// run runs a server program, as the postgres user when we are root.
func (c *cluster) run(prog string, args ...string) (string, error) {
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

func (c *cluster) stop() {
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
