package httpapi

import (
	"net/http"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSearch_ShortTerms: terms of one or two characters, which SQLite looks up by the trigrams
// they start (store/search_short.go, migration 00015) and PostgreSQL walks. A term is found as
// a whole entry, at the end of one (only the padding makes a trigram of it there), in any case
// and in the title (ranked first); characters apart or reversed, text in trash, and a term that
// holds the padding character never match. Letters beyond ASCII are found in any case.
func TestSearch_ShortTerms(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := func(title string, texts ...string) string {
			id := e.mkPage(t, e.full, wsParent, title)
			var kids []any
			for _, s := range texts {
				kids = append(kids, para(s))
			}
			e.appendKids(t, id, kids...)
			return id
		}
		whole := page("One", "zq")
		atEnd := page("Two", "filler", "the end is xzq")
		inTitle := page("Zq title", "nothing here")
		upper := page("Four", "ZQ upper")
		apart := page("Five", "z q apart", "qz reversed")
		trashed := page("Six", "zq in trash")
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+trashed, e.full, nil), 200)
		meeting := page("Seven", "开会")
		turkish := page("Eight", "İzmir и Привет")

		for _, c := range []struct {
			query string
			want  []string // in order: the title match first, then by last edit, newest first
		}{
			{"zq", []string{inTitle, upper, atEnd, whole}},
			{"xz", []string{atEnd}},
			{"会", []string{meeting}},
			{"q", []string{inTitle, apart, upper, atEnd, whole}},
			{"qj", nil},
			{"İz", []string{turkish}}, // FTS5 keeps İ as it is; Go would lower it to i
			{"пР", []string{turkish}},
			{"И", []string{turkish}},
			{"q\u0001", nil},
			{"zq\u0001", nil},
		} {
			r := e.do(http.MethodPost, "/v2/search", e.full, map[string]any{"query": c.query, "filter": map[string]any{"property": "object", "value": "page"}})
			wantOK(t, r, 200)
			var got []string
			for _, it := range objects(r.body["results"]) {
				got = append(got, it["id"].(string))
			}
			if !slices.Equal(got, c.want) || r.body["has_more"] != false {
				t.Errorf("%q: %v, has_more %v; want %v", c.query, got, r.body["has_more"], c.want)
			}
		}
	})
}

// TestSearch_CaseBeyondASCII: the case of letters outside ASCII is ignored as that of ASCII
// letters is, in every plan: the trigram lookup (the titles and blocks here are few), the walk
// (dense after one entry), and short terms, which are always checked by substring. SQLite's LIKE
// folds ASCII alone (store/search_fold.go).
func TestSearch_CaseBeyondASCII(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Été à Paris")
		e.appendKids(t, page, para("Привет мир"), para("ΣΟΦΙΑ και σοφός"))
		other := e.mkPage(t, e.full, wsParent, "Other")
		e.appendKids(t, other, para("ete a paris, privet"))
		for _, terms := range [][]string{{"ét"}, {"ÉTÉ"}, {"été", "PARIS"}, {"привет"}, {"МИР"}, {"σοφια"}, {"ΣΟΦΌ"}, {"σοφος"}, {"Ο"}} {
			for _, dense := range []int{0, 1} {
				got := planIDs(t, st, e.ws.ID, terms, dense)
				want := []string{page}
				if terms[0] == "σοφος" { // no accent: not the same letters
					want = nil
				}
				if !slices.Equal(got, want) {
					t.Errorf("%q dense after %d: %v, want %v", terms, dense, got, want)
				}
			}
		}
	})
}
