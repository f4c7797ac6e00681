package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSearch_PlansAgree runs keyword searches with both plans of internal/search — matches
// gathered from the trigram indexes (sparse terms) and nodes walked in result order (dense
// terms), and their mix — over the same content, page by page with cursors, in every order: the
// same results in the same order.
func TestSearch_PlansAgree(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		var trashed string
		for i := range 12 {
			title := fmt.Sprintf("Notes %d", i)
			if i%3 == 0 {
				title = fmt.Sprintf("Roadmap 会议 %d", i)
			}
			page := e.mkPage(t, e.full, wsParent, title)
			var kids []any
			for j := range i % 4 {
				kids = append(kids, para(fmt.Sprintf("roadmap review %d, 会议纪要 %d", i, j)))
			}
			kids = append(kids, para("unrelated text"))
			e.appendKids(t, page, kids...)
			if i == 5 {
				trashed = page
			}
		}
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+trashed, e.full, nil), 200)
		// The plans compared are the index's: the entries are put into SQLite's trigram indexes
		// now rather than when the upkeep loop gets to them (the unindexed tail is read whole).
		if _, err := st.IndexSearch(context.Background()); err != nil {
			t.Fatal(err)
		}

		resumes := 0
		walk := func(q search.Query) []search.Key {
			t.Helper()
			var keys []search.Key
			for range 200 {
				res, resume, err := st.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range res {
					keys = append(keys, r.Key)
				}
				if resume != nil {
					q.After = resume // the walk stopped at its bound
					resumes++
					continue
				}
				if len(res) < q.Limit {
					return keys
				}
				q.After = &res[len(res)-1].Key
			}
			t.Fatal("the walk does not end")
			return nil
		}
		// "xt" ends "unrelated text": found only through the indexes' padding (00015). "要" is one
		// character; "qq" and "zebra" occur nowhere.
		absent := map[string]bool{"zebra": true, "qq": true}
		for _, terms := range [][]string{{"roadmap"}, {"ROADMAP", "review"}, {"会议纪要"}, {"会议"}, {"roadmap", "会议"}, {"zebra"},
			{"xt"}, {"要"}, {"会", "XT"}, {"qq"}} {
			for _, order := range []search.Order{search.ByRelevance, search.ByEdited, search.ByCreated} {
				for _, asc := range []bool{false, true} {
					q := search.Query{Workspace: e.ws.ID, Terms: terms, Order: order, Ascending: asc, Limit: 2, Object: quire.ObjectPage}
					q.Tuning = search.Tuning{DenseAfter: 1 << 30, Probe: -1}
					sparse := walk(q)
					if st.Engine() == store.SQLite {
						// Every term has an index there, short ones too: with every match listed,
						// nothing is walked, however short the walk's bound.
						resumes, q.Tuning.Walk = 0, 1
						if got := walk(q); resumes != 0 || !cmp.Equal(got, sparse) {
							t.Errorf("%q order %d asc %v: listed matches walked (%d stops), or answered otherwise", terms, order, asc, resumes)
						}
						q.Tuning.Walk = 0
					}
					for _, v := range []struct{ dense, probe, walk, byID int }{
						{1, -1, 0, 0},                                  // walk only
						{3, -1, 0, 0},                                  // sparse titles beside dense blocks, for some terms
						{1 << 30, 1, 0, 0}, {3, 3, 0, 0}, {0, 0, 0, 0}, // a probe, then the index or the walk
						{1, -1, 1, 0}, {1, -1, 3, 0}, {3, 3, 2, 0}, // walks cut short, inside a page's blocks too
						{1 << 30, -1, 0, 1}, // every list longer than one node narrowed by a walk of ids (SQLite)
					} {
						q.Tuning = search.Tuning{DenseAfter: v.dense, Probe: v.probe, Walk: v.walk, ByID: v.byID}
						resumes = 0
						got := walk(q)
						if v.walk == 1 && !absent[terms[0]] && resumes == 0 { // a term in no index: no walk
							t.Errorf("%q order %d asc %v: a walk of one entry a request never stopped at its bound", terms, order, asc)
						}
						if diff := cmp.Diff(sparse, got); diff != "" {
							t.Errorf("%q order %d asc %v dense after %d probe %d walk %d by id %d: (-sparse +got)\n%s", terms, order, asc, v.dense, v.probe, v.walk, v.byID, diff)
						}
					}
					if terms[0] == "roadmap" && len(terms) == 1 && len(sparse) != 9 {
						t.Errorf("%q: %d results, want 9 (10 pages by content or title, one in trash)", terms, len(sparse))
					}
					if terms[0] == "xt" && len(sparse) != 11 {
						t.Errorf("%q: %d results, want 11 (every page's last block, one page in trash)", terms, len(sparse))
					}
				}
			}
		}
	})
}

// TestSearch_NarrowedListKeepsReach: a list of matching pages longer than the by-id bound is
// narrowed by a walk of the nodes (firstListed) that keeps to the token's reach; the page of
// results is then read without computing the reach again, so the walk alone must have kept the
// pages the token does not reach out. Pages of one, with cursors.
func TestSearch_NarrowedListKeepsReach(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		var pages []string
		for i := range 6 {
			page := e.mkPage(t, e.full, wsParent, fmt.Sprintf("Page %d", i))
			e.appendKids(t, page, para("roadmap review"))
			pages = append(pages, page)
		}
		granted := []string{pages[1], pages[4]}
		p, err := e.svc.Authenticate(context.Background(), "Bearer "+e.token([]quire.Scope{quire.SearchRead}, false, granted...))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		q := search.Query{Workspace: e.ws.ID, ReachOf: p.Token.ID, Terms: []string{"roadmap"}, Limit: 1,
			Tuning: search.Tuning{DenseAfter: 1 << 30, Probe: -1, ByID: 1}}
		for range 10 {
			res, resume, err := st.Search(context.Background(), q)
			if err != nil || resume != nil {
				t.Fatalf("Search: %v, resume %v", err, resume)
			}
			for _, r := range res {
				got = append(got, r.Node.ID)
			}
			if len(res) < q.Limit {
				break
			}
			q.After = &res[len(res)-1].Key
		}
		if want := []string{pages[4], pages[1]}; !cmp.Equal(got, want) {
			t.Errorf("reached pages %v, want %v (the newest first)", got, want)
		}
	})
}
