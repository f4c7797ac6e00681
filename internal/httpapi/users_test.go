package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestUsersMe(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		tok := e.token([]quire.Scope{quire.PagesRead, quire.UsersEmailRead}, true)
		r := e.do(http.MethodGet, "/v2/users/me", tok, nil)
		if r.status != 200 {
			t.Fatalf("status %d: %s", r.status, r.raw)
		}
		caps := map[string]any{}
		for _, sc := range quire.AllScopes {
			caps[string(sc)] = sc == quire.PagesRead || sc == quire.UsersEmailRead
		}
		want := map[string]any{
			"object": "bot_user", "name": "test bot", "workspace_id": e.ws.ID, "workspace_name": "Acme",
			"owner": map[string]any{"object": "user", "id": e.owner.ID}, "capabilities": caps,
			"type": "integration", "workspace_scoped": true,
		}
		got := r.body
		for _, k := range []string{"id", "integration_id"} {
			if !quire.ValidID(fmt.Sprint(got[k])) {
				t.Errorf("%s = %v, want a UUID", k, got[k])
			}
			delete(got, k)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("bot_user (-want +got):\n%s", diff)
		}
	})
}

func TestUsers_EmailNeedsScope(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		for _, tc := range []struct {
			name   string
			scopes []quire.Scope
			want   any
		}{
			{"users.read only", []quire.Scope{quire.UsersRead}, nil},
			{"with users.email.read", []quire.Scope{quire.UsersRead, quire.UsersEmailRead}, "ada@example.com"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tok := e.token(tc.scopes, true)
				r := e.do(http.MethodGet, "/v2/users/"+e.owner.ID, tok, nil)
				want := map[string]any{"object": "user", "id": e.owner.ID, "type": "person", "name": "Ada Lovelace",
					"avatar_url": "", "person": map[string]any{"email": tc.want}}
				if r.status != 200 {
					t.Fatalf("status %d: %s", r.status, r.raw)
				}
				if diff := cmp.Diff(want, r.body); diff != "" {
					t.Fatalf("user (-want +got):\n%s", diff)
				}
				// The list shows the same object.
				l := e.do(http.MethodGet, "/v2/users", tok, nil)
				if l.status != 200 {
					t.Fatalf("list status %d: %s", l.status, l.raw)
				}
				if diff := cmp.Diff(want, l.body["results"].([]any)[0]); diff != "" {
					t.Fatalf("listed user (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestUsers_NotFoundAcrossWorkspaces(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		ctx := context.Background()
		other, _ := e.svc.CreateWorkspace(ctx, "Other")
		stranger, err := e.svc.CreateUser(ctx, other.ID, "Eve", "eve@example.com")
		if err != nil {
			t.Fatal(err)
		}
		e.do(http.MethodGet, "/v2/users/"+stranger.ID, e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodGet, "/v2/users/"+quire.NewID(), e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodGet, "/v2/users/not-a-uuid", e.full, nil).wantError(t, 400, quire.CodeValidation, "user_id")
	})
}

func TestUsers_Pagination(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		ctx := context.Background()
		want := map[string]bool{e.owner.ID: true}
		for i := range 6 {
			u, err := e.svc.CreateUser(ctx, e.ws.ID, "U", fmt.Sprintf("u%d@example.com", i))
			if err != nil {
				t.Fatal(err)
			}
			want[u.ID] = true
		}
		seen := map[string]int{}
		cursor, pages := "", 0
		for {
			path := "/v2/users?page_size=3"
			if cursor != "" {
				path += "&start_cursor=" + cursor
			}
			r := e.do(http.MethodGet, path, e.full, nil)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.raw)
			}
			pages++
			for _, u := range r.body["results"].([]any) {
				seen[u.(map[string]any)["id"].(string)]++
			}
			// A user added mid-walk must not disturb the walk.
			if pages == 1 {
				if _, err := e.svc.CreateUser(ctx, e.ws.ID, "Late", "late@example.com"); err != nil {
					t.Fatal(err)
				}
			}
			if r.body["has_more"] == false {
				if r.body["next_cursor"] != nil {
					t.Fatalf("last page has a cursor: %s", r.raw)
				}
				break
			}
			cursor = r.body["next_cursor"].(string)
		}
		for id := range want {
			if seen[id] != 1 {
				t.Errorf("user %s seen %d times, want once", id, seen[id])
			}
		}
		if pages != 3 {
			t.Errorf("pages = %d, want 3 (8 users by 3)", pages)
		}
	})
}

func TestPaginationParams(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		other := newEnv(t, st) // another workspace on the same store: its cursors are foreign here
		first := other.do(http.MethodGet, "/v2/users?page_size=1", other.full, nil)
		if _, err := other.svc.CreateUser(context.Background(), other.ws.ID, "B", "b@example.com"); err != nil {
			t.Fatal(err)
		}
		first = other.do(http.MethodGet, "/v2/users?page_size=1", other.full, nil)
		foreign, _ := first.body["next_cursor"].(string)
		if foreign == "" {
			t.Fatalf("expected a cursor: %s", first.raw)
		}
		for _, tc := range []struct {
			query, path, reason string
		}{
			{"page_size=0", "page_size", quire.ReasonOutOfRange},
			{"page_size=101", "page_size", quire.ReasonOutOfRange},
			{"page_size=abc", "page_size", quire.ReasonInvalidType},
			{"start_cursor=garbage", "start_cursor", quire.ReasonInvalidValue},
			{"start_cursor=" + foreign, "start_cursor", quire.ReasonInvalidValue},
			{"colour=red", "colour", quire.ReasonUnknownField},
		} {
			t.Run(tc.query, func(t *testing.T) {
				r := e.do(http.MethodGet, "/v2/users?"+tc.query, e.full, nil)
				r.wantError(t, 400, quire.CodeValidation, tc.path)
				d := r.body["details"].([]any)[0].(map[string]any)
				if d["reason"] != tc.reason {
					t.Fatalf("reason = %v, want %s", d["reason"], tc.reason)
				}
			})
		}
		r := e.do(http.MethodGet, "/v2/users", e.full, nil)
		if n := len(r.body["results"].([]any)); r.status != 200 || n != 1 {
			t.Fatalf("default page: status %d, %d results", r.status, n)
		}
	})
}

func TestWorkspace(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		r := e.do(http.MethodGet, "/v2/workspace", e.token(nil, true), nil)
		want := map[string]any{"object": "workspace", "id": e.ws.ID, "name": "Acme",
			"created_time": quire.FormatMillis(e.ws.CreatedMs), "page_count": 0.0, "database_count": 0.0, "member_count": 1.0}
		if r.status != 200 {
			t.Fatalf("status %d: %s", r.status, r.raw)
		}
		if diff := cmp.Diff(want, r.body); diff != "" {
			t.Fatalf("workspace (-want +got):\n%s", diff)
		}
	})
}
