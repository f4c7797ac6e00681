// Command quire serves the Quire API and administers its store.
package main

import (
	"context"
	"fmt"
	"io"

	"github.com/quire-dev/quire/internal/cli"
)

const usage = `quire: a self-hostable workspace content API.

Usage:
  quire serve [flags]                 serve the API (embedded SQLite, or --database-url)
  quire backup --out FILE.tar.gz      one consistent archive of a live store
  quire restore --in FILE.tar.gz      load an archive into an empty store (either engine)
  quire workspace create --name NAME
  quire workspace list
  quire user create --workspace WS --name NAME --email EMAIL
  quire user list --workspace WS
  quire token create --workspace WS --owner USER_ID --name NAME --scopes s1,s2|all [--workspace-scoped] [--grant ID]...
  quire token list [--workspace WS]
  quire token show --token-id BOT_ID
  quire token grant --token-id BOT_ID --grant ID
  quire token rotate --token-id BOT_ID
  quire token revoke --token-id BOT_ID
  quire webhook create --workspace WS --url URL [--event-types t1,t2] [--description TEXT]
  quire webhook list --workspace WS
  quire webhook delete --workspace WS --webhook-id ID
  quire export --workspace WS --out DIR|FILE.zip
  quire import --workspace WS --from DIR|FILE.zip [--parent PAGE]
  quire version                       also quire --version

Every command takes --data DIR (env QUIRE_DATA, default ./quire-data) or --database-url URL
(env QUIRE_DATABASE_URL). Admin commands work while a server runs on the same store and print
one JSON object; they refuse a store that does not exist yet unless given --create. Run
"quire COMMAND --help" for a command's flags, "quire token --help" for a group's commands.
`

// errUsage marks an error that is the caller's wrong invocation (exit status 2).
var errUsage = cli.ErrUsage

func main() { cli.Main("quire", run) }

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
	case "workspace", "user", "token", "webhook":
		return adminGroup(ctx, cmd, rest, stdout, stderr)
	case "export", "import":
		return transferCmd(ctx, cmd, rest, stdout, stderr)
	case "version", "--version", "-version":
		return printVersion(stdout)
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "quire: unknown command %q\n\n%s", cmd, usage)
	return errUsage
}
