// Command quire serves the Quire API and administers its store.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `quire: a self-hostable workspace content API.

Usage:
  quire serve [flags]                 serve the API (embedded SQLite, or --database-url)
  quire backup --out FILE.tar.gz      one consistent archive of a live store
  quire restore --in FILE.tar.gz      load an archive into an empty store (either engine)
  quire workspace create --name NAME
  quire user create --workspace WS --name NAME --email EMAIL
  quire token create --workspace WS --owner USER_ID --name NAME --scopes s1,s2|all [--workspace-scoped] [--grant ID]...
  quire token grant --token-id BOT_ID --grant ID
  quire token revoke --token-id BOT_ID
  quire export --workspace WS --out DIR|FILE.zip
  quire import --workspace WS --from DIR|FILE.zip [--parent PAGE]

Every command takes --data DIR (env QUIRE_DATA, default ./quire-data) or --database-url URL
(env QUIRE_DATABASE_URL). Admin commands work while a server runs on the same store and print
one JSON object. Run "quire COMMAND --help" for a command's flags.
`

// errUsage marks an error that is the caller's wrong invocation (exit status 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "quire:", err)
		os.Exit(1)
	}
}

// run executes one command line; main only reports what it returns.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return serve(ctx, rest, stdout, stderr)
	case "backup":
		return backupCmd(ctx, rest, stdout, stderr)
	case "restore":
		return restoreCmd(ctx, rest, stdout, stderr)
	case "workspace", "user", "token":
		if len(rest) == 0 {
			fmt.Fprint(stderr, usage)
			return errUsage
		}
		return admin(ctx, cmd+" "+rest[0], rest[1:], stdout, stderr)
	case "export", "import":
		return transferCmd(ctx, cmd, rest, stdout, stderr)
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "quire: unknown command %q\n\n%s", cmd, usage)
	return errUsage
}
