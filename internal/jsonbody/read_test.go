package jsonbody

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
)

// TestEachObject: every object of an array is handed over with its own path, and an item that
// is no object is reported at its index and skipped, the others still read.
func TestEachObject(t *testing.T) {
	var p quire.Problems
	var got []string
	arr := []any{map[string]any{"a": 1.0}, "x", map[string]any{}}
	EachObject(&p, "sorts", arr, func(path string, m map[string]any) {
		got = append(got, path)
	})
	if diff := cmp.Diff([]string{"sorts[0]", "sorts[2]"}, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	want := []quire.Detail{{Path: "sorts[1]", Reason: quire.ReasonInvalidType}}
	if diff := cmp.Diff(want, p.Details); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
}
