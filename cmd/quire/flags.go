package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/quire-dev/quire/internal/cli"
	"github.com/quire-dev/quire/internal/store"
)

// newFlags makes a flag set for one command, writing its help to stderr.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: quire %s\n\nFlags:\n", synopsis)
		cli.PrintFlags(stderr, fs)
	}
	return fs
}

// env returns the environment variable's value, or def when it is unset.
func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// storeFlags are the flags every command shares: where the data lives.
type storeFlags struct {
	data, databaseURL string
}

func (sf *storeFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&sf.data, "data", env("QUIRE_DATA", "quire-data"), "folder of the embedded SQLite store (env QUIRE_DATA)")
	fs.StringVar(&sf.databaseURL, "database-url", env("QUIRE_DATABASE_URL", ""), "PostgreSQL URL, postgres://…; overrides --data (env QUIRE_DATABASE_URL)")
}

func (sf *storeFlags) open(ctx context.Context) (*store.Store, error) {
	return store.Open(ctx, store.Config{Dir: sf.data, DatabaseURL: sf.databaseURL})
}

// args are the flags that name this store, to repeat in a command printed for the operator
// (" --data DIR", or " --database-url URL" with its password left out); "" for the default.
func (sf *storeFlags) args() string {
	if sf.databaseURL != "" {
		u, err := url.Parse(sf.databaseURL)
		if err != nil {
			return " --database-url URL"
		}
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "PASSWORD")
		}
		return " --database-url '" + u.String() + "'"
	}
	if _, set := os.LookupEnv("QUIRE_DATA"); sf.data == "quire-data" && !set {
		return ""
	}
	return " --data '" + sf.data + "'"
}

// openExisting opens the store as open does, but only one that exists already unless create:
// an admin command given a mistyped folder or database says so rather than start a new store.
func (sf *storeFlags) openExisting(ctx context.Context, create bool) (*store.Store, error) {
	cfg := store.Config{Dir: sf.data, DatabaseURL: sf.databaseURL}
	if !create {
		ok, err := store.Exists(ctx, cfg)
		if err != nil {
			return nil, err
		}
		if !ok {
			where := "no Quire store in " + filepath.Join(cmp.Or(sf.data, "."), "quire.db") + " (--data)"
			if sf.databaseURL != "" {
				where = "the database of --database-url holds no Quire store"
			}
			return nil, errors.New(where + "; check the flag, start `quire serve` on it once, or pass --create to make it now")
		}
	}
	return store.Open(ctx, cfg)
}

// parse parses args; --help answers nil with help printed, and a bad flag errUsage.
func parse(fs *flag.FlagSet, args []string) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "quire %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return false, errUsage
	}
	return false, nil
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}
