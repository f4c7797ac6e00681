package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/transfer"
)

// transferCmd runs "quire export" and "quire import": progress on stderr, the summary as one
// JSON object on stdout.
func transferCmd(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	synopsis := map[string]string{
		"export": "export --workspace WS --out DIR|FILE.zip\n\nWrites the workspace: every page as Markdown with front matter, " +
			"databases as schema.json, records.csv and pages,\nmind maps as lists and JSON, the files, and quire-export.json, " +
			"the tree that quire import restores with its ids.",
		"import": "import --workspace WS --from DIR|FILE.zip [--parent PAGE]\n\nReads a quire export, a Notion \"Markdown & CSV\" " +
			"export, or a folder of Markdown files into the workspace.\nEach page is written whole or not at all; run the same " +
			"command again after an interruption to finish.",
	}[name]
	fs := newFlags(name, synopsis, stderr)
	var sf storeFlags
	var ff fileFlags
	sf.add(fs)
	ff.add(fs)
	ws := fs.String("workspace", "", "the workspace id (required)")
	user := fs.String("user", "", "the user written as creator of what is imported; default the workspace's first user")
	var where, parent *string
	if name == "export" {
		where = fs.String("out", "", "the folder (new or empty) or .zip file to write (required)")
	} else {
		where = fs.String("from", "", "the folder or .zip file to read (required)")
		parent = fs.String("parent", "", "a page the imported top-level pages go under; default the workspace's top level")
	}
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	need := map[string]string{"export": "out", "import": "from"}[name]
	if err := required(fs, "workspace", need); err != nil {
		return err
	}
	st, err := sf.openExisting(ctx, false) // export and import need a workspace, so a store made now could hold none
	if err != nil {
		return err
	}
	defer st.Close()
	files, err := ff.open(ctx, sf.data)
	if err != nil {
		return err
	}
	svc := service.New(st, service.Options{Files: files})
	p, err := cliPrincipal(ctx, svc, *ws, *user)
	if err != nil {
		return describe(err)
	}
	prog := transfer.NewProgress(stderr, isTerminal(stderr), name)
	var sum *transfer.Summary
	if name == "export" {
		out, err := transfer.NewSink(*where)
		if err != nil {
			return err
		}
		sum, err = transfer.Export(ctx, svc, p, out, prog)
		if err != nil {
			return describe(err)
		}
	} else {
		src, err := transfer.OpenSource(*where)
		if err != nil {
			return err
		}
		defer src.Close()
		sum, err = transfer.Import(ctx, svc, p, src, transfer.Options{Parent: *parent, Progress: prog})
		if errors.Is(err, context.Canceled) {
			err = errors.New("interrupted: every page written is whole; run the same command again to finish")
		}
		if err != nil {
			if sum != nil {
				_ = printJSON(stdout, sum)
			}
			return describe(err)
		}
		// As after a restore: the import's keyword entries indexed before the command ends,
		// not by the next server to open the store; search is exact meanwhile either way.
		if _, err := st.IndexSearch(ctx); err != nil {
			fmt.Fprintf(stderr, "import: keyword index left to the server's background work: %v\n", err)
		}
	}
	return printJSON(stdout, sum)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// cliPrincipal acts for the command line: a workspace-scoped caller with every scope, whose
// writes are made by user (or the workspace's first user).
func cliPrincipal(ctx context.Context, svc *service.Service, ws, user string) (*quire.Principal, error) {
	p := &quire.Principal{Token: &quire.Token{ID: "quire-cli", WorkspaceID: ws, Scopes: quire.AllScopes, WorkspaceScoped: true}}
	w, err := svc.Workspace(ctx, p)
	if err != nil {
		return nil, err
	}
	p.WorkspaceName = w.Workspace.Name
	if user == "" {
		users, err := svc.ListUsers(ctx, p, "", 1)
		if err != nil {
			return nil, err
		}
		if len(users.Items) > 0 {
			user = users.Items[0].ID
		}
	}
	p.Token.OwnerID = user
	return p, nil
}

// isTerminal reports whether w is a terminal, where progress redraws one line.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
