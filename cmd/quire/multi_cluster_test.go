package main

import (
	"database/sql"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/testdb"
)

// cluster is two `quire serve` processes, A and B, on one PostgreSQL database, with one folder
// of uploaded files and one embeddings service, as behind a load balancer.
type cluster struct {
	a, b  *server
	dbURL string
	db    *sql.DB // the database itself, to watch the embedding queue
	args  []string
	emb   *embedService
	ws    string // workspace id
	user  string // its user
	token string // workspace-scoped, every scope
}

// TestSeveralServers checks that two servers on one PostgreSQL behave as one: every write
// through one is read through the other at once, and idempotency, versions, cursors, semantic
// search, files and rate limits behave as docs/reliability.md ("Several servers, one
// PostgreSQL") says.
func TestSeveralServers(t *testing.T) {
	c := &cluster{dbURL: testdb.PostgresURL(t), emb: newEmbedService()}
	data := t.TempDir()
	es := httptest.NewServer(c.emb)
	t.Cleanup(es.Close)
	var err error
	if c.db, err = sql.Open("pgx", c.dbURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.db.Close() })
	c.args = []string{"--database-url", c.dbURL, "--data", filepath.Join(data, "shared")}
	c.seed(t)
	ab := startServers(t, c.serverArgs(es.URL), "A", "B")
	c.a, c.b = ab[0], ab[1]

	t.Run("writes are read through the other at once", c.testFreshReads)
	t.Run("mind maps", c.testMindMaps)
	t.Run("idempotency", c.testIdempotency)
	t.Run("versions", c.testVersions)
	t.Run("cursors", c.testCursors)
	t.Run("semantic search", c.testSemantic)
	t.Run("files", c.testFiles)
	t.Run("servers C and D", func(t *testing.T) { c.testOtherPair(t, es.URL) })
	t.Run("revoked token", c.testRevoke)
	t.Run("rotated token", c.testRotate)
	t.Run("withdrawn reach", c.testWithdrawnReach)
}

// serverArgs gives a server's flags: the shared store and file folder, and the embeddings
// service under a path per server, so that it can tell who sent what.
func (c *cluster) serverArgs(embedURL string) func(name string) []string {
	return func(name string) []string {
		return append(c.args[:len(c.args):len(c.args)], "--embeddings-url", embedURL+"/"+name+"/v1",
			"--embeddings-model", "use-lite")
	}
}

// seed makes the workspace, its user and token with the admin commands, as an operator would.
func (c *cluster) seed(t *testing.T) {
	c.ws = runJSON(t, append([]string{"workspace", "create", "--name", "Acme"}, c.args...)...)["id"].(string)
	c.user = runJSON(t, append([]string{"user", "create", "--workspace", c.ws, "--name", "Ada", "--email", "ada@example.com"}, c.args...)...)["id"].(string)
	c.token, _ = c.newToken(t, "ci")
}

// newToken makes a workspace-scoped token with every scope and returns its secret and id.
func (c *cluster) newToken(t *testing.T, name string) (secret, id string) {
	tok := runJSON(t, append([]string{"token", "create", "--workspace", c.ws, "--owner", c.user,
		"--name", name, "--scopes", "all", "--workspace-scoped"}, c.args...)...)
	return tok["token"].(string), tok["bot_id"].(string)
}

// TestSeveralServers_StartTogether starts three servers at once on an empty database, as a
// deployment's first rollout does: the migrations' advisory lock lets one apply each migration
// once, the signing secret is made once, and all three accept each other's cursors.
func TestSeveralServers_StartTogether(t *testing.T) {
	dbURL, db := emptyPostgres(t)
	servers := startServers(t, func(string) []string { return []string{"--database-url", dbURL, "--data", t.TempDir()} }, "A", "B", "C")

	files, err := os.ReadDir("../../internal/store/migrations/postgres")
	if err != nil {
		t.Fatal(err)
	}
	var applied, twice, secrets int
	if err := db.QueryRow(`SELECT COUNT(DISTINCT version_id), COUNT(*) - COUNT(DISTINCT version_id) FROM goose_db_version
		WHERE version_id > 0`).Scan(&applied, &twice); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM settings WHERE key = 'secret'`).Scan(&secrets); err != nil {
		t.Fatal(err)
	}
	if applied != len(files) || twice != 0 || secrets != 1 {
		t.Fatalf("%d migrations applied (%d files), %d applied twice, %d secrets", applied, len(files), twice, secrets)
	}

	c := &cluster{args: []string{"--database-url", dbURL}}
	c.seed(t)
	for _, name := range []string{"Bea", "Cy"} {
		runJSON(t, append([]string{"user", "create", "--workspace", c.ws, "--name", name, "--email", name + "@example.com"}, c.args...)...)
	}
	l := listing{"users", "GET", "/v2/users", nil}
	whole := c.walk(t, l, 100, servers[0])
	if got := c.walk(t, l, 1, servers...); len(whole) != 3 || !slices.Equal(got, whole) {
		t.Fatalf("users one by one through A, B, C: %v; all at once: %v", got, whole)
	}
}
