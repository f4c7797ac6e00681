package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/testdb"
)

// runErr runs one command line that must fail and returns its error's text.
func runErr(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	if err == nil {
		t.Fatalf("quire %s succeeded, printing %s", strings.Join(args, " "), out.String())
	}
	return err.Error() + "\n" + errOut.String()
}

// ids returns the given field of a printed list's results.
func ids(list map[string]any, field string) []string {
	var out []string
	for _, r := range list["results"].([]any) {
		out = append(out, r.(map[string]any)[field].(string))
	}
	return out
}

// TestAdmin_ListShowRotate lists what the other commands made, shows a token, and rotates it
// while a server trusts the old secret from its cache: once the command returns, the server
// refuses the old secret and takes the new one.
func TestAdmin_ListShowRotate(t *testing.T) {
	for name, storeFlags := range engines {
		t.Run(name, func(t *testing.T) {
			sf := storeFlags(t)
			cmd := func(args ...string) map[string]any { return runJSON(t, append(append(args, sf...), "--create")...) }
			ws := cmd("workspace", "create", "--name", "Acme")["id"].(string)
			other := cmd("workspace", "create", "--name", "Other")["id"].(string)
			ada := cmd("user", "create", "--workspace", ws, "--name", "Ada", "--email", "ada@example.com")["id"].(string)
			bob := cmd("user", "create", "--workspace", ws, "--name", "Bob", "--email", "bob@example.com")["id"].(string)
			cmd("user", "create", "--workspace", other, "--name", "Cy", "--email", "cy@example.com")
			tok := cmd("token", "create", "--workspace", ws, "--owner", ada, "--name", "ci", "--scopes", "all", "--workspace-scoped")
			botID, secret := tok["bot_id"].(string), tok["token"].(string)
			dead := cmd("token", "create", "--workspace", ws, "--owner", bob, "--name", "old", "--scopes", "users.read", "--workspace-scoped")["bot_id"].(string)
			cmd("token", "revoke", "--token-id", dead)

			if got := ids(cmd("workspace", "list"), "name"); !slices.Equal(got, []string{"Acme", "Other"}) {
				t.Fatalf("workspace list: %v", got)
			}
			if got := ids(cmd("user", "list", "--workspace", strings.ReplaceAll(ws, "-", "")), "id"); !slices.Equal(got, []string{ada, bob}) {
				t.Fatalf("user list: %v, want [%s %s]", got, ada, bob)
			}
			list := cmd("token", "list", "--workspace", ws)
			if got := ids(list, "bot_id"); !slices.Equal(got, []string{botID, dead}) {
				t.Fatalf("token list: %v", got)
			}
			if raw, _ := json.Marshal(list); bytes.Contains(raw, []byte(`"token":`)) || bytes.Contains(raw, []byte(secret)) {
				t.Fatalf("token list shows a secret: %s", raw)
			}
			if got := ids(cmd("token", "list", "--workspace", other), "bot_id"); got != nil {
				t.Fatalf("token list of a workspace without tokens: %v", got)
			}
			show := cmd("token", "show", "--token-id", strings.ReplaceAll(dead, "-", "")) // as pasted from a link
			if show["bot_id"] != dead || show["revoked_time"] == nil || show["name"] != "old" {
				t.Fatalf("token show: %v", show)
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stdout := &syncBuffer{}
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn", "--access-log", "off"}, sf...), stdout, io.Discard)
			}()
			base := waitForURL(t, stdout, done)
			get(t, base+"/v2/users/me", secret) // the server has accepted the secret once

			rot := cmd("token", "rotate", "--token-id", botID)
			fresh := rot["token"].(string)
			if rot["bot_id"] != botID || rot["integration_id"] != tok["integration_id"] || fresh == secret || !strings.HasPrefix(fresh, "quire_") {
				t.Fatalf("rotate printed %v (was %v)", rot, tok)
			}
			if status := statusOf(t, base+"/v2/users/me", secret); status != http.StatusUnauthorized {
				t.Fatalf("the old secret right after rotate: %d, want 401", status)
			}
			if me := get(t, base+"/v2/users/me", fresh); me["id"] != botID {
				t.Fatalf("users/me with the new secret: %v", me)
			}

			if msg := runErr(t, append([]string{"token", "rotate", "--token-id", dead}, sf...)...); !strings.Contains(msg, "revoked") {
				t.Fatalf("rotate of a revoked token: %s", msg)
			}
			if msg := runErr(t, append([]string{"token", "show", "--token-id", "00000000-0000-4000-8000-000000000000"}, sf...)...); !strings.Contains(msg, "token") {
				t.Fatalf("show of an unknown token: %s", msg)
			}
			if msg := runErr(t, append([]string{"user", "list", "--workspace", "00000000-0000-4000-8000-000000000000"}, sf...)...); !strings.Contains(msg, "workspace") {
				t.Fatalf("user list of an unknown workspace: %s", msg)
			}
			cancel()
			<-done
		})
	}
}

func statusOf(t *testing.T, url, token string) int {
	t.Helper()
	res := authGet(t, url, token)
	res.Body.Close()
	return res.StatusCode
}

// emptyPostgres is a fresh PostgreSQL database with no tables, as a new deployment's, and a
// connection to look into it.
func emptyPostgres(t *testing.T) (string, *sql.DB) {
	t.Helper()
	dbURL := testdb.PostgresURL(t)
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public`); err != nil {
		t.Fatal(err)
	}
	return dbURL, db
}

// TestAdmin_MissingStore points admin commands at a store that was never made: they say so and
// leave nothing behind, unless given --create.
func TestAdmin_MissingStore(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "typo")
		for _, args := range [][]string{{"workspace", "list"}, {"workspace", "create", "--name", "A"}, {"token", "list"}} {
			if msg := runErr(t, append(args, "--data", dir)...); !strings.Contains(msg, "no Quire store in "+filepath.Join(dir, "quire.db")) || !strings.Contains(msg, "--create") {
				t.Fatalf("quire %v on a missing folder: %s", args, msg)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("quire %v made %s: %v", args, dir, err)
			}
		}
		runJSON(t, "workspace", "create", "--name", "A", "--data", dir, "--create")
		if got := ids(runJSON(t, "workspace", "list", "--data", dir), "name"); !slices.Equal(got, []string{"A"}) {
			t.Fatalf("after --create: %v", got)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		dbURL, db := emptyPostgres(t)
		if msg := runErr(t, "workspace", "create", "--name", "A", "--database-url", dbURL); !strings.Contains(msg, "holds no Quire store") {
			t.Fatalf("workspace create on an empty database: %s", msg)
		}
		var tables int
		if err := db.QueryRow(`SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&tables); err != nil || tables != 0 {
			t.Fatalf("%d tables made (%v)", tables, err)
		}
		runJSON(t, "workspace", "create", "--name", "A", "--database-url", dbURL, "--create")
		if got := ids(runJSON(t, "workspace", "list", "--database-url", dbURL), "name"); !slices.Equal(got, []string{"A"}) {
			t.Fatalf("after --create: %v", got)
		}
	})
}
