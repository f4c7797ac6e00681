package search

import (
	"database/sql/driver"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"modernc.org/sqlite"
)

// SQLite's LIKE folds the case of ASCII letters alone: "Été" LIKE '%ét%' is false, and
// "ПРИВЕТ" does not match "Привет". Every substring check of a search (contains) with a term
// holding other letters that have case calls quire_contains instead, which folds as it scans.
// Terms of ASCII letters keep the plain LIKE: the call into Go for every row checked (about
// 0.3 µs) is paid only by the terms that need it. PostgreSQL folds by the database's own rules:
// ILIKE on titles, and lower() on both sides for entries (entryContains).
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("quire_contains", 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		var text string
		switch v := args[0].(type) {
		case nil:
			return nil, nil
		case string:
			text = v
		case []byte:
			text = string(v)
		default:
			text = fmt.Sprint(v)
		}
		needle, _ := args[1].(string)
		if containsFolded(text, needle) {
			return int64(1), nil
		}
		return int64(0), nil
	})
}

// foldRune maps a letter to one form of its case: the lower case of its upper case, so that
// final sigma (ς), σ and Σ meet.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf { // most of most texts: no tables
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(unicode.ToUpper(r))
}

// fold is foldRune over s.
func fold(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		out = append(out, foldRune(r))
	}
	return string(out)
}

// containsFolded reports whether text holds needle (already folded) once text is folded,
// without building the folded text: the forms of needle's first rune (ς, σ and Σ for σ) are
// found by byte search, and only there is the rest compared rune by rune.
func containsFolded(text, needle string) bool {
	if needle == "" {
		return true
	}
	first, firstSize := utf8.DecodeRuneInString(needle)
	forms := foldForms(first)
	var next [8]int // where forms[f] next occurs in text (-1: nowhere)
	n := min(len(forms), len(next))
	for f := range n {
		next[f] = strings.Index(text, forms[f])
	}
	for {
		f := -1
		for k := range n {
			if next[k] >= 0 && (f < 0 || next[k] < next[f]) {
				f = k
			}
		}
		if f < 0 {
			return false
		}
		at := next[f]
		j, k := at+len(forms[f]), firstSize
		for k < len(needle) && j < len(text) {
			tr, ts := utf8.DecodeRuneInString(text[j:])
			nr, ns := utf8.DecodeRuneInString(needle[k:])
			if foldRune(tr) != nr {
				break
			}
			j, k = j+ts, k+ns
		}
		if k == len(needle) {
			return true
		}
		from := at + len(forms[f])
		if i := strings.Index(text[from:], forms[f]); i >= 0 {
			next[f] = from + i
		} else {
			next[f] = -1
		}
	}
}

// foldForms are the runes that fold to r (a folded rune), encoded, r first: its case orbit
// (unicode.SimpleFold) and the few runes outside it that fold there too (İ and ı to i). Kept
// per rune: quire_contains asks once for every row it checks.
func foldForms(r rune) []string {
	if v, ok := foldFormsOf.Load(r); ok {
		return v.([]string)
	}
	foldExtrasOnce.Do(func() {
		foldExtras = map[rune][]rune{}
		for c := rune(utf8.RuneSelf); c <= 0x1FFFF; c++ {
			f := foldRune(c)
			if f == c || !unicode.IsLetter(c) || inFoldOrbit(f, c) {
				continue
			}
			foldExtras[f] = append(foldExtras[f], c)
		}
	})
	forms := []string{string(r)}
	for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
		if foldRune(o) == r {
			forms = append(forms, string(o))
		}
	}
	for _, c := range foldExtras[r] {
		forms = append(forms, string(c))
	}
	foldFormsOf.Store(r, forms)
	return forms
}

// inFoldOrbit reports whether c is in r's case orbit (unicode.SimpleFold).
func inFoldOrbit(r, c rune) bool {
	for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
		if o == c {
			return true
		}
	}
	return false
}

var (
	foldFormsOf    sync.Map // rune → []string, foldForms' answers
	foldExtrasOnce sync.Once
	foldExtras     map[rune][]rune // runes outside the case orbit of the rune they fold to
)

// foldsBeyondASCII reports whether term holds a letter outside ASCII that has another case.
func foldsBeyondASCII(term string) bool {
	for _, r := range term {
		if r >= utf8.RuneSelf && unicode.SimpleFold(r) != r {
			return true
		}
	}
	return false
}
