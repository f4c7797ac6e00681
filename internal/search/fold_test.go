package search

import (
	"database/sql"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestContainsFolded(t *testing.T) {
	for _, c := range []struct {
		text, term string
		want       bool
	}{
		{"Été à Paris", "ét", true},
		{"Été à Paris", "ÉTÉ À", true},
		{"Привет мир", "ПРИВЕТ", true},
		{"ΣΟΦΙΑ", "σοφια", true},
		{"σοφός", "ΣΟΦΌΣ", true}, // final sigma meets Σ
		{"İstanbul", "istanbul", true},
		{"KELVIN", "kelvin", true}, // Kelvin sign
		{"prıvet", "PRIVET", true},
		{"ete a paris", "été", false},
		{"привет", "приветы", false},
		{"пп пр", "пр", true}, // the first form matches twice before the rest does
		{"", "a", false},
		{"abc", "", true},
		{"Ωmega ω", "ωMEGA", true},
	} {
		if got := containsFolded(c.text, fold(c.term)); got != c.want {
			t.Errorf("containsFolded(%q, fold(%q)) = %v, want %v", c.text, c.term, got, c.want)
		}
	}
}

// FuzzContainsFolded: quire_contains finds exactly what a search of the folded text would.
func FuzzContainsFolded(f *testing.F) {
	for _, seed := range [][2]string{{"Été à Paris", "ét"}, {"σοφός", "ΣΟΦΌΣ"}, {"İi ıI", "iı"}, {"ﬃ", "FFI"}, {"aaaab", "AAB"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, text, term string) {
		if !utf8.ValidString(text) || !utf8.ValidString(term) {
			t.Skip("entries and terms are valid UTF-8 (JSON)")
		}
		needle := fold(term)
		if got, want := containsFolded(text, needle), strings.Contains(fold(text), needle); got != want {
			t.Fatalf("containsFolded(%q, %q) = %v; the folded text %q says %v", text, needle, got, fold(text), want)
		}
	})
}

// BenchmarkQuireContains is the cost of quire_contains beside LIKE over 20,000 entries, the
// bound of a walk: what a term with letters of another case beyond ASCII adds to one.
func BenchmarkQuireContains(b *testing.B) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE d (text TEXT);
		WITH RECURSIVE seq (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 20000)
		INSERT INTO d SELECT 'Meeting notes on the quarterly roadmap, item ' || i || ' budget Привет tok' || i FROM seq`); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, where string }{
		{"like", `text LIKE '%zq%'`},
		{"quire_contains", `quire_contains(text, 'приветы')`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				var n int
				if err := db.QueryRow(`SELECT count(*) FROM d WHERE ` + c.where).Scan(&n); err != nil || n != 0 {
					b.Fatal(n, err)
				}
			}
		})
	}
}
