package search

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Terms splits a query into terms: words separated by spaces, or "quoted phrases", each once
// whatever its case. Text is NFKC-normalized first, so full-width Latin letters and half-width
// katakana find their usual forms.
func Terms(q string) []string {
	q = norm.NFKC.String(q)
	var terms []string
	seen := map[string]bool{}
	add := func(t string) {
		t = strings.TrimSpace(t)
		if t != "" && !seen[strings.ToLower(t)] {
			seen[strings.ToLower(t)] = true
			terms = append(terms, t)
		}
	}
	for q != "" {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		if q == "" {
			break
		}
		if q[0] == '"' {
			if end := strings.IndexByte(q[1:], '"'); end >= 0 {
				add(q[1 : end+1])
				q = q[end+2:]
				continue
			}
			q = q[1:]
		}
		end := strings.IndexFunc(q, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
		if end < 0 {
			end = len(q)
		}
		add(q[:end])
		q = q[end:]
	}
	return terms
}
