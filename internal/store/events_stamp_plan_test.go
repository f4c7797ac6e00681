package store_test

import (
	"encoding/json"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestEvents_StampPlans pins the plans every read of PostgreSQL's feed relies on: the probe for
// events without a position, and the numbering of them, read a range of the events' primary key
// (the negative positions of one workspace), never the table whole, with a custom plan and the
// generic one a pooled connection settles on.
func TestEvents_StampPlans(t *testing.T) {
	s := testdb.Postgres(t)
	ws, _ := seed(t, s)
	if err := s.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.ExecForTest(ctx, `INSERT INTO events (workspace_id, seq, id, type, entity_type, entity_id, parent_type,
			parent_id, reach_id, user_id, bot_id, data, created_ms)
			SELECT w, g, w || g, 'page.created', 'page', 'x', 'workspace', '', 'x', '', '', '{}', 1
			FROM generate_series(1, 2000) g, (VALUES ($1), ('other')) AS v (w)`, ws.ID); err != nil {
			return err
		}
		return tx.ExecForTest(ctx, `ANALYZE events`)
	}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		name, query string
		args        []any
	}{
		{"probe", store.StampProbeQueryForTest, []any{ws.ID}},
		{"numbering", store.StampQueryForTest, []any{ws.ID, 2000}},
	} {
		for _, generic := range []bool{false, true} {
			plan, err := s.PlanForTest(ctx, generic, q.query, q.args...)
			if err != nil {
				t.Fatal(err)
			}
			var doc []struct{ Plan pgPlan }
			if err := json.Unmarshal([]byte(plan), &doc); err != nil || len(doc) != 1 {
				t.Fatalf("%v\n%s", err, plan)
			}
			keyed := false
			var walk func(p pgPlan)
			walk = func(p pgPlan) {
				if p.RelationName == "events" && p.IndexName != "events_pkey" && p.NodeType != "ModifyTable" {
					t.Errorf("%s, generic %v: events read by %s %s:\n%s", q.name, generic, p.NodeType, p.IndexName, plan)
				}
				keyed = keyed || p.IndexName == "events_pkey"
				for _, c := range p.Plans {
					walk(c)
				}
			}
			walk(doc[0].Plan)
			if !keyed {
				t.Errorf("%s, generic %v: no read of events_pkey:\n%s", q.name, generic, plan)
			}
		}
	}
}
