package service

import (
	"slices"
	"testing"
)

// TestVectorCache_EvictsLeastRecentlyUsed: past the bound, the sets searched longest ago go.
func TestVectorCache_EvictsLeastRecentlyUsed(t *testing.T) {
	c := newVectorCache(250)
	for i, ws := range []string{"a", "b", "c"} {
		s := &vectorSet{}
		s.bytes.Store(100)
		s.lastUse.Store(int64(i))
		c.sets[vectorKey{ws, "m"}] = s
	}
	c.account(vectorKey{"c", "m"})
	var left []string
	for k := range c.sets {
		left = append(left, k.workspace)
	}
	slices.Sort(left)
	if !slices.Equal(left, []string{"b", "c"}) || c.bytes != 200 {
		t.Fatalf("kept %v (%d bytes), want [b c] (200)", left, c.bytes)
	}
}
