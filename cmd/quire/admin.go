package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// adminCommand is one admin subcommand: its flags and what it does with the service.
type adminCommand struct {
	synopsis string
	need     []string // flags that must be set, checked before the store is opened
	flags    func(fs *flag.FlagSet) func(ctx context.Context, svc *service.Service) (any, error)
}

// adminGroup runs "quire workspace|user|token …": a subcommand, or the group's help.
func adminGroup(ctx context.Context, group string, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || isHelp(args[0]) {
		w := stdout
		if len(args) == 0 {
			w = stderr
		}
		fmt.Fprintf(w, "Usage:\n")
		for _, name := range slices.Sorted(maps.Keys(adminCommands)) {
			if strings.HasPrefix(name, group+" ") {
				first, _, _ := strings.Cut(adminCommands[name].synopsis, "\n")
				fmt.Fprintf(w, "  quire %s\n", first)
			}
		}
		fmt.Fprintf(w, "\nRun \"quire %s COMMAND --help\" for a command's flags.\n", group)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	return admin(ctx, group+" "+args[0], args[1:], stdout, stderr)
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// admin runs one admin command and prints the one JSON object it returns.
func admin(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	cmd, ok := adminCommands[name]
	if !ok {
		group, _, _ := strings.Cut(name, " ")
		fmt.Fprintf(stderr, "quire: unknown command %q; \"quire %s --help\" lists the %s commands\n", name, group, group)
		return errUsage
	}
	fs := newFlags(name, cmd.synopsis, stderr)
	var sf storeFlags
	sf.add(fs)
	create := fs.Bool("create", false, "make the store if it does not exist yet (without it, a command given a wrong --data or --database-url says so and creates nothing)")
	do := cmd.flags(fs)
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if err := required(fs, cmd.need...); err != nil {
		return err
	}
	canonicalIDFlags(fs)
	st, err := sf.openExisting(ctx, *create)
	if err != nil {
		return err
	}
	defer st.Close()
	out, err := do(ctx, service.New(st, service.Options{}))
	if err != nil {
		return describe(err)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// canonicalIDFlags turns ids given as 32 hex digits without dashes into the canonical form, as
// the API does (the form Notion's links carry, which an operator may paste).
func canonicalIDFlags(fs *flag.FlagSet) {
	fs.Visit(func(f *flag.Flag) {
		switch v := f.Value.(type) {
		case *listFlag: // --grant, repeated
			for i, s := range *v {
				if id, ok := quire.DashlessID(s); ok {
					(*v)[i] = id
				}
			}
		default:
			if f.Name != "workspace" && f.Name != "owner" && f.Name != "token-id" && f.Name != "grant" {
				return
			}
			if id, ok := quire.DashlessID(v.String()); ok {
				_ = v.Set(id)
			}
		}
	})
}

// describe turns a service error into a one-line message for the terminal.
func describe(err error) error {
	if qe, ok := quire.AsError(err); ok {
		msg := qe.Message
		for _, d := range qe.Details {
			msg += fmt.Sprintf(" [--%s: %s]", d.Path, d.Reason)
		}
		return fmt.Errorf("%s", msg)
	}
	return err
}

// required reports the first of the named flags left empty.
func required(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if fs.Lookup(n).Value.String() == "" {
			return fmt.Errorf("--%s is required (see quire %s --help)", n, fs.Name())
		}
	}
	return nil
}

// tokenRecord is a token as admin commands print it, never with its secret.
type tokenRecord struct {
	Object          string   `json:"object"`
	BotID           string   `json:"bot_id"`
	IntegrationID   string   `json:"integration_id"`
	WorkspaceID     string   `json:"workspace_id"`
	OwnerID         string   `json:"owner_id"`
	Name            string   `json:"name"`
	Scopes          []string `json:"scopes"`
	WorkspaceScoped bool     `json:"workspace_scoped"`
	Grants          []string `json:"grants"`
	CreatedTime     string   `json:"created_time"`
	RevokedTime     *string  `json:"revoked_time"`
}

func newTokenRecord(t *quire.Token) tokenRecord {
	r := tokenRecord{Object: "token", BotID: t.ID, IntegrationID: t.IntegrationID, WorkspaceID: t.WorkspaceID,
		OwnerID: t.OwnerID, Name: t.Name, WorkspaceScoped: t.WorkspaceScoped, Grants: t.Grants,
		CreatedTime: quire.FormatMillis(t.CreatedMs), Scopes: []string{}}
	for _, s := range t.Scopes {
		r.Scopes = append(r.Scopes, string(s))
	}
	if r.Grants == nil {
		r.Grants = []string{}
	}
	if t.RevokedMs != 0 {
		v := quire.FormatMillis(t.RevokedMs)
		r.RevokedTime = &v
	}
	return r
}

func userJSON(u *quire.User) map[string]any {
	return map[string]any{"object": "user", "id": u.ID, "type": "person", "name": u.Name,
		"avatar_url": u.AvatarURL, "person": map[string]any{"email": u.Email}, "workspace_id": u.WorkspaceID}
}

// adminCommands are every "quire GROUP COMMAND", by "GROUP COMMAND".
var adminCommands = mergeCommands(createCommands, listCommands, webhookCommands)

func mergeCommands(sets ...map[string]adminCommand) map[string]adminCommand {
	all := map[string]adminCommand{}
	for _, set := range sets {
		maps.Copy(all, set)
	}
	return all
}

// createCommands are the admin commands that add to the store or change a token's reach.
var createCommands = map[string]adminCommand{
	"workspace create": {
		need:     []string{"name"},
		synopsis: "workspace create --name NAME\n\nCreates a workspace and prints {\"object\":\"workspace\",\"id\",\"name\"}.",
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			name := fs.String("name", "", "the workspace's name (required)")
			return func(ctx context.Context, svc *service.Service) (any, error) {
				w, err := svc.CreateWorkspace(ctx, *name)
				if err != nil {
					return nil, err
				}
				return map[string]any{"object": "workspace", "id": w.ID, "name": w.Name}, nil
			}
		},
	},
	"user create": {
		need:     []string{"workspace", "name", "email"},
		synopsis: "user create --workspace WS --name NAME --email EMAIL\n\nAdds a person to a workspace and prints the user object.",
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			ws := fs.String("workspace", "", "the workspace id (required)")
			name := fs.String("name", "", "the person's name (required)")
			email := fs.String("email", "", "the person's email, unique in the workspace (required)")
			return func(ctx context.Context, svc *service.Service) (any, error) {
				u, err := svc.CreateUser(ctx, *ws, *name, *email)
				if err != nil {
					return nil, err
				}
				return userJSON(u), nil
			}
		},
	},
	"token create": {
		need: []string{"workspace", "owner", "name", "scopes"},
		synopsis: "token create --workspace WS --owner USER_ID --name NAME --scopes s1,s2|all [--workspace-scoped] [--grant ID]...\n\n" +
			"Issues a token and prints {\"token\",\"bot_id\",\"integration_id\"}. The secret is shown only this once.\n" +
			"A workspace-scoped token reaches the whole workspace; any other reaches only the pages and\n" +
			"databases granted to it (--grant, repeatable) and everything beneath them.\n" +
			"Scopes: " + quire.JoinScopes(quire.AllScopes) + ", or all.",
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			ws := fs.String("workspace", "", "the workspace id (required)")
			owner := fs.String("owner", "", "id of the user who owns the integration (required)")
			name := fs.String("name", "", "the integration's name (required)")
			scopes := fs.String("scopes", "", "comma-separated scopes, or all (required)")
			wide := fs.Bool("workspace-scoped", false, "reach the whole workspace")
			var grants listFlag
			fs.Var(&grants, "grant", "a page or database `ID` the token reaches (repeatable)")
			return func(ctx context.Context, svc *service.Service) (any, error) {
				sc, err := quire.ParseScopes(*scopes)
				if err != nil {
					return nil, err
				}
				secret, t, err := svc.CreateToken(ctx, service.TokenSpec{WorkspaceID: *ws, OwnerID: *owner, Name: *name,
					Scopes: sc, WorkspaceScoped: *wide, Grants: grants})
				if err != nil {
					return nil, err
				}
				return map[string]any{"token": secret, "bot_id": t.ID, "integration_id": t.IntegrationID}, nil
			}
		},
	},
	"token grant": {
		need:     []string{"token-id", "grant"},
		synopsis: "token grant --token-id BOT_ID --grant ID\n\nLets a token reach a page or database and everything beneath it; prints the token's record.",
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			id := fs.String("token-id", "", "the token's bot id (required)")
			grant := fs.String("grant", "", "the page or database id (required)")
			return func(ctx context.Context, svc *service.Service) (any, error) {
				t, err := svc.GrantToken(ctx, *id, *grant)
				if err != nil {
					return nil, err
				}
				return newTokenRecord(t), nil
			}
		},
	},
	"token revoke": {
		need:     []string{"token-id"},
		synopsis: "token revoke --token-id BOT_ID\n\nRevokes a token for good; prints the token's record. Every running server refuses it from its next request.",
		flags: func(fs *flag.FlagSet) func(context.Context, *service.Service) (any, error) {
			id := fs.String("token-id", "", "the token's bot id (required)")
			return func(ctx context.Context, svc *service.Service) (any, error) {
				t, err := svc.RevokeToken(ctx, *id)
				if err != nil {
					return nil, err
				}
				return newTokenRecord(t), nil
			}
		},
	},
}
