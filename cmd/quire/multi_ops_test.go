package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// upload asks s for an upload URL and sends content to it through put (the same server or
// another): the URL's signature is the store's, not the process's.
func (c *cluster) upload(t *testing.T, s, put *server, content []byte) (id, fileURL string) {
	up := s.ok(t, "POST", "/v2/files/upload-url", c.token, map[string]any{"filename": "note.txt",
		"content_type": "text/plain", "size": len(content)})
	u := strings.Replace(str(up.body, "upload_url"), s.base, put.base, 1)
	if r := put.ok(t, "PUT", u, "", string(content), "Content-Type", "text/plain"); str(r.body, "status") != "uploaded" {
		t.Fatalf("PUT through %s: %s", put.name, r.raw)
	}
	return str(up.body, "id"), str(up.body, "file", "file", "url")
}

// fetch GETs a file URL, asked of server s (same path and signature, s's address).
func fetch(t *testing.T, s *server, u string, want []byte) {
	t.Helper()
	i := strings.Index(u, "/v2/files/")
	if i < 0 {
		t.Fatalf("file URL %s is not Quire's", u)
	}
	if r := s.do(t, "GET", u[i:], "", nil); r.status != 200 || !bytes.Equal(r.raw, want) {
		t.Fatalf("GET %s through %s: %d %q, want %q", u[i:], s.name, r.status, r.raw, want)
	}
}

// testFiles uploads through one server and downloads through the other. Both keep files in one
// folder (--data on shared storage; with --s3-endpoint, the bucket is what is shared).
func (c *cluster) testFiles(t *testing.T) {
	a, b := c.a, c.b
	one := []byte("uploaded through A")
	id, u := c.upload(t, a, a, one)
	fetch(t, b, u, one) // the URL A signed, served by B
	dl := b.ok(t, "GET", "/v2/files/download-url?file_id="+id, c.token, nil)
	if !strings.HasPrefix(str(dl.body, "url"), b.base+"/") {
		t.Fatalf("B's download URL %s is not B's", str(dl.body, "url"))
	}
	fetch(t, b, str(dl.body, "url"), one)

	two := []byte("upload URL from A, bytes sent to B")
	_, u = c.upload(t, a, b, two)
	fetch(t, a, u, two)
}

// testOtherPair starts two more servers, C and D, on the same database with their own file
// folder and a limit of one request per 5 s (a burst of 1).
func (c *cluster) testOtherPair(t *testing.T, embedURL string) {
	if r := c.a.ok(t, "GET", "/v2/users/me", c.token, nil); r.header.Get("RateLimit-Limit") != "" {
		t.Fatalf("A has no limit but sent RateLimit-Limit %q", r.header.Get("RateLimit-Limit"))
	}
	args := []string{"--database-url", c.dbURL, "--data", t.TempDir(), "--rate-limit", "0.2",
		"--embeddings-url", embedURL + "/v1", "--embeddings-model", "use-lite"}
	pair := startServers(t, func(string) []string { return args }, "C", "D")

	// Each server keeps its own buckets, so a token refused by one is admitted by the other.
	t.Run("rate limits", func(t *testing.T) {
		tok, _ := c.newToken(t, "limited")
		for _, s := range pair {
			first := s.do(t, "GET", "/v2/users/me", tok, nil)
			h := first.header
			if first.status != 200 || h.Get("RateLimit-Limit") != "1" || h.Get("RateLimit-Remaining") != "0" {
				t.Fatalf("first request to %s: %d, RateLimit-Limit %q, -Remaining %q", s.name, first.status,
					h.Get("RateLimit-Limit"), h.Get("RateLimit-Remaining"))
			}
			second := s.do(t, "GET", "/v2/users/me", tok, nil)
			retry, _ := strconv.Atoi(second.header.Get("Retry-After"))
			if second.status != 429 || str(second.body, "code") != "rate_limited" || retry < 1 || retry > 5 {
				t.Fatalf("second request to %s: %d %s, Retry-After %q", s.name, second.status, second.raw, second.header.Get("Retry-After"))
			}
		}
	})

	// Local files need one folder for all servers: C's own folder lacks what A stored.
	t.Run("files in another folder", func(t *testing.T) {
		content := []byte("kept in A's folder")
		id, _ := c.upload(t, c.a, c.a, content)
		u := str(c.a.ok(t, "GET", "/v2/files/download-url?file_id="+id, c.token, nil).body, "url")
		fetch(t, c.b, u, content)
		// The uploading token's only request to C: within its burst.
		cu := str(pair[0].ok(t, "GET", "/v2/files/download-url?file_id="+id, c.token, nil).body, "url")
		if r := pair[0].do(t, "GET", cu[strings.Index(cu, "/v2/"):], "", nil); r.status != 500 || str(r.body, "code") != "internal_error" {
			t.Fatalf("GET of a file missing from C's folder: %d %s", r.status, r.raw)
		}
	})
}

// testRevoke revokes a token with the admin command after both servers accepted it: each
// refuses it on the very next request (no server trusts a token from memory).
func (c *cluster) testRevoke(t *testing.T) {
	tok, id := c.newToken(t, "revoked")
	for _, s := range []*server{c.a, c.b} {
		s.ok(t, "GET", "/v2/users/me", tok, nil)
	}
	runJSON(t, append([]string{"token", "revoke", "--token-id", id}, c.args...)...)
	for _, s := range []*server{c.a, c.b} {
		if r := s.do(t, "GET", "/v2/users/me", tok, nil); r.status != 401 {
			t.Fatalf("%s answers the revoked token with %d %s", s.name, r.status, r.raw)
		}
	}
}
