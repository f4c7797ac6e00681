package store_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestAuthenticateNode_ReachWalk checks the joined read's reach walk for tokens that are not
// workspace-scoped (on PostgreSQL the function quire_token_reaches, on SQLite the statement's
// CTE) against Reaches, on a chain of 2,000 nodes where token tI (secret hash hI) is granted
// node nI: a token reaches its node and everything below it up to maxDepth (1000) steps down,
// nothing above it and nothing deeper.
func TestAuthenticateNode_ReachWalk(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws := seedPlanShapes(t, s)
		for _, tc := range []struct {
			token, node string
			want        bool
		}{
			{"3", "n3", true},
			{"3", "n4", true},
			{"3", "n1003", true},  // 1000 steps up to the grant
			{"3", "n1004", false}, // 1001
			{"3", "n2", false},    // above the grant
			{"1500", "n1999", true},
			{"1999", "n1999", true},
			{"1999", "n1998", false},
			{"3", "absent", false},
		} {
			p, n, err := s.AuthenticateNode(ctx, "h"+tc.token, tc.node, store.PageFields)
			if err != nil || p == nil || p.Token.ID != "t"+tc.token {
				t.Fatalf("AuthenticateNode(h%s, %s) = %+v, %v; want the token", tc.token, tc.node, p, err)
			}
			if got := n != nil; got != tc.want {
				t.Errorf("AuthenticateNode(h%s, %s) read the node: %v, want %v", tc.token, tc.node, got, tc.want)
			}
			if n != nil && n.ID != tc.node {
				t.Errorf("AuthenticateNode(h%s, %s) read node %s", tc.token, tc.node, n.ID)
			}
			reaches, err := s.Reaches(ctx, ws, "t"+tc.token, tc.node)
			if err != nil || reaches != tc.want {
				t.Errorf("Reaches(t%s, %s) = %v, %v; want %v", tc.token, tc.node, reaches, err, tc.want)
			}
		}
	})
}

// TestAuthenticateNode_NoWalkInPlan pins why the page GET's joined read is cheaper on
// PostgreSQL: its plan, custom and generic, holds no recursive walk (PostgreSQL sets up every
// subplan of a statement at each execution, whether the CASE takes its branch or not), only
// the token's and the node's index reads and the call of quire_token_reaches. On SQLite the
// statement keeps its CTE.
func TestAuthenticateNode_NoWalkInPlan(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		seedPlanShapes(t, s)
		for _, q := range []string{store.AuthenticatePageQueryForTest(s.Engine()), store.AuthenticateNodeQueryForTest(s.Engine())} {
			if s.Engine() == store.SQLite {
				if !strings.Contains(q, "WITH RECURSIVE up") {
					t.Errorf("SQLite's joined read lost its walk:\n%s", q)
				}
				continue
			}
			for _, generic := range []bool{false, true} {
				plan, err := s.PlanForTest(ctx, generic, q, "h3", "n1999")
				if err != nil {
					t.Fatal(err)
				}
				var doc []struct{ Plan pgPlan }
				if err := json.Unmarshal([]byte(plan), &doc); err != nil || len(doc) != 1 {
					t.Fatalf("%v\n%s", err, plan)
				}
				var walk func(p pgPlan)
				walk = func(p pgPlan) {
					switch p.NodeType {
					case "Recursive Union", "CTE Scan", "WorkTable Scan", "Hash Join", "Hash":
						t.Errorf("generic %v: the joined read's plan sets up %s:\n%s", generic, p.NodeType, plan)
					}
					for _, c := range p.Plans {
						walk(c)
					}
				}
				walk(doc[0].Plan)
				if !strings.Contains(plan, "quire_token_reaches") {
					t.Errorf("generic %v: the plan does not call quire_token_reaches:\n%s", generic, plan)
				}
			}
		}
	})
}
