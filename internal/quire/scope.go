package quire

import (
	"fmt"
	"slices"
	"strings"
)

// Scope is one permission a token may hold.
type Scope string

// The nine scopes of the specification, in the order the capabilities object lists them.
const (
	PagesRead      Scope = "pages.read"
	PagesWrite     Scope = "pages.write"
	BlocksRead     Scope = "blocks.read"
	BlocksWrite    Scope = "blocks.write"
	DatabasesRead  Scope = "databases.read"
	DatabasesWrite Scope = "databases.write"
	UsersRead      Scope = "users.read"
	UsersEmailRead Scope = "users.email.read"
	SearchRead     Scope = "search.read"
)

// AllScopes lists every scope in a stable order.
var AllScopes = []Scope{PagesRead, PagesWrite, BlocksRead, BlocksWrite, DatabasesRead, DatabasesWrite, UsersRead, UsersEmailRead, SearchRead}

// ParseScopes reads a comma-separated list; "all" means every scope. The result is sorted in
// AllScopes order without duplicates.
func ParseScopes(s string) ([]Scope, error) {
	if strings.TrimSpace(s) == "all" {
		return slices.Clone(AllScopes), nil
	}
	seen := map[Scope]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		sc := Scope(part)
		if !slices.Contains(AllScopes, sc) {
			return nil, fmt.Errorf("unknown scope %q (known: %s, or all)", part, JoinScopes(AllScopes))
		}
		seen[sc] = true
	}
	out := make([]Scope, 0, len(seen))
	for _, sc := range AllScopes {
		if seen[sc] {
			out = append(out, sc)
		}
	}
	return out, nil
}

// JoinScopes is the inverse of ParseScopes for a list that is not all scopes.
func JoinScopes(scopes []Scope) string {
	parts := make([]string, len(scopes))
	for i, s := range scopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, ",")
}
