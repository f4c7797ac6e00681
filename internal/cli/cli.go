// Package cli is what Quire's commands (quire, quire-bench) share: how main reports what run
// returns, and the flag listing of their help.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// ErrUsage marks an error that is the caller's wrong invocation (exit status 2); what was wrong
// has been printed already.
var ErrUsage = errors.New("usage")

// Main runs a command's run with the process's arguments and streams, cancelling its context
// on SIGINT or SIGTERM, and exits as run's error says: 0, 2 for ErrUsage, else 1 with the error
// printed after the command's name.
func Main(name string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, ErrUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// PrintFlags lists the flags GNU-style (--name), as the usage texts and README write them.
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		line += "\n      " + usage
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			line += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		fmt.Fprintln(w, line)
	})
}
