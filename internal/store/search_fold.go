package store

import (
	"database/sql/driver"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"modernc.org/sqlite"
)

// SQLite's LIKE folds the case of ASCII letters alone: "Été" LIKE '%ét%' is false, and
// "ПРИВЕТ" does not match "Привет". Every substring check of a search (contains) with a term
// holding other letters that have case compares both sides through quire_fold instead. Terms
// of ASCII letters keep the plain LIKE: the call into Go for every row checked is paid only by
// the terms that need it. PostgreSQL's ILIKE folds by the database's own rules.
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("quire_fold", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case nil:
			return nil, nil
		case string:
			return fold(v), nil
		case []byte:
			return fold(string(v)), nil
		default:
			return fold(fmt.Sprint(v)), nil
		}
	})
}

// fold maps every letter to one form of its case: lower case of its upper case, so that final
// sigma (ς), σ and Σ meet.
func fold(s string) string {
	return strings.Map(func(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }, s)
}

// foldsBeyondASCII reports whether term holds a letter outside ASCII that has another case.
func foldsBeyondASCII(term string) bool {
	for _, r := range term {
		if r >= utf8.RuneSelf && unicode.SimpleFold(r) != r {
			return true
		}
	}
	return false
}
