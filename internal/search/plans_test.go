package search

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPlans: a kept plan is given back until planKeep after its estimate, then not; past
// maxKeptPlans the kept plans start again empty; a key longer than maxPlanKey is not kept; a nil
// Plans keeps nothing. Each would let a plan outlive its bound or the memory grow without one.
func TestPlans(t *testing.T) {
	now := time.Unix(1000, 0)
	p := NewPlans()
	p.now = func() time.Time { return now }
	dense := keptPlan{hints: Hints{ContentDense: true}, at: p.clock()}
	p.put("a", dense)
	if got, ok := p.get("a"); !ok || got != dense {
		t.Fatalf("get after put = %+v, %t; want %+v", got, ok, dense)
	}
	now = now.Add(planKeep - time.Millisecond)
	if _, ok := p.get("a"); !ok {
		t.Errorf("get just before planKeep: not kept")
	}
	now = now.Add(time.Millisecond)
	if _, ok := p.get("a"); ok {
		t.Errorf("get at planKeep: still kept")
	}

	p = NewPlans()
	p.now = func() time.Time { return now }
	for i := range maxKeptPlans {
		p.put(strconv.Itoa(i), keptPlan{at: now})
	}
	if _, ok := p.get("7"); !ok || len(p.kept) != maxKeptPlans {
		t.Fatalf("%d plans kept, want %d", len(p.kept), maxKeptPlans)
	}
	p.put("7", keptPlan{hints: Hints{NotRare: true}, at: now}) // a kept key again: no eviction
	if len(p.kept) != maxKeptPlans {
		t.Errorf("putting a kept key again: %d plans kept, want %d", len(p.kept), maxKeptPlans)
	}
	p.put("one more", keptPlan{at: now})
	if _, ok := p.get("7"); ok || len(p.kept) != 1 {
		t.Errorf("past the bound: %d plans kept, want the new one alone", len(p.kept))
	}

	long := strings.Repeat("x", maxPlanKey+1)
	p.put(long, keptPlan{at: now})
	if _, ok := p.get(long); ok {
		t.Errorf("a key of %d bytes is kept", len(long))
	}

	var none *Plans
	none.put("a", dense)
	if _, ok := none.get("a"); ok || !none.clock().IsZero() {
		t.Errorf("a nil Plans keeps a plan")
	}
}

// TestPlanKey: the key tells the workspace, the filters and the terms apart, in their order,
// and not the token's reach or the page size (the plan does not depend on them).
func TestPlanKey(t *testing.T) {
	base := Query{Workspace: "w", Terms: []string{"ab", "c"}, Limit: 20}
	same := base
	same.ReachOf, same.Limit = "tok", 7
	if planKey(base) != planKey(same) {
		t.Errorf("the reach or the limit changes the key")
	}
	for _, q := range []Query{
		{Workspace: "x", Terms: []string{"ab", "c"}},
		{Workspace: "w", Object: "page", Terms: []string{"ab", "c"}},
		{Workspace: "w", PageType: "page", Terms: []string{"ab", "c"}},
		{Workspace: "w", Terms: []string{"a", "bc"}},
		{Workspace: "w", Terms: []string{"abc"}},
		{Workspace: "w", Terms: []string{"c", "ab"}},
	} {
		if planKey(q) == planKey(base) {
			t.Errorf("%+v has the key of %+v", q, base)
		}
	}
}
