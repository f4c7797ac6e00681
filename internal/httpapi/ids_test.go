package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// dashless writes an id as Notion's page links do: 32 hex digits, here in upper case too.
func dashless(id string) string { return strings.ToUpper(strings.ReplaceAll(id, "-", "")) }

// TestDashlessIDs sends ids without dashes in a path, a body and a query string: each is read
// as the canonical id, answers carry the canonical form, and free text that happens to be 32
// hex digits is kept as written.
func TestDashlessIDs(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		home, db := e.newDatabase(t, taskSchema())
		dbID := db["id"].(string)
		md5 := "d41d8cd98f00b204e9800998ecf8427e" // free text: never an id
		rec := e.record(t, dbID, map[string]any{"Name": []any{txt(md5)}})

		// A path: the page, its blocks, the database and its query.
		r := e.do("GET", "/v2/pages/"+dashless(home), e.full, nil)
		wantOK(t, r, http.StatusOK)
		if r.body["id"] != home {
			t.Fatalf("GET /v2/pages/<dashless> answered id %v, want %s", r.body["id"], home)
		}
		wantOK(t, e.do("GET", "/v2/blocks/"+dashless(home)+"/children", e.full, nil), http.StatusOK)
		wantOK(t, e.do("GET", "/v2/databases/"+dashless(dbID), e.full, nil), http.StatusOK)
		q := e.do("POST", "/v2/databases/"+dashless(dbID)+"/query", e.full, `{}`)
		wantOK(t, q, http.StatusOK)
		if got := q.body["results"].([]any); len(got) != 1 || got[0].(map[string]any)["id"] != rec["id"] {
			t.Fatalf("query through the dashless path: %s", q.raw)
		}

		// A body: a parent page_id, and a paragraph whose text is 32 hex digits.
		child := e.do("POST", "/v2/pages", e.full, `{"parent": {"page_id": "`+dashless(home)+`"},
			"properties": {"title": [{"text": {"content": "`+md5+`"}}]}}`)
		wantOK(t, child, http.StatusOK)
		if got := child.body["parent"]; !cmp.Equal(got, map[string]any{"type": "page_id", "page_id": home}) {
			t.Fatalf("parent of a page created under a dashless page_id = %v", got)
		}
		title := child.body["properties"].(map[string]any)["title"].(map[string]any)["title"].([]any)
		if got := title[0].(map[string]any)["plain_text"]; got != md5 {
			t.Fatalf("a title of 32 hex digits came back as %v", got)
		}

		// A query string: the file is found (and still pending), as with its canonical id.
		up := e.do("POST", "/v2/files/upload-url", e.full, map[string]any{"filename": "a.txt", "content_type": "text/plain", "size": 1})
		wantOK(t, up, http.StatusOK)
		fileID := up.body["id"].(string)
		e.do("GET", "/v2/files/download-url?file_id="+fileID, e.full, nil).wantError(t, http.StatusBadRequest, quire.CodeValidation, "file_id")
		dl := e.do("GET", "/v2/files/download-url?file_id="+dashless(fileID), e.full, nil)
		dl.wantError(t, http.StatusBadRequest, quire.CodeValidation, "file_id")
		if msg := dl.body["message"]; msg != "The file is pending, not uploaded." {
			t.Fatalf("download-url with a dashless file_id: %s", dl.raw)
		}

		// Not an id: 31 digits are refused as any malformed id is.
		e.do("GET", "/v2/pages/"+dashless(home)[1:], e.full, nil).wantError(t, http.StatusBadRequest, quire.CodeValidation, "page_id")
	})
}
