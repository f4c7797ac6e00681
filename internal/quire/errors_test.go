package quire

import (
	"slices"
	"testing"
)

// TestProblems: every problem is kept in order, the first message is the error's, and a
// problem at the same path for the same reason is listed once.
func TestProblems(t *testing.T) {
	var p Problems
	if p.Err() != nil {
		t.Fatal("no problem, yet an error")
	}
	p.Add("type", ReasonImmutable, "first")
	p.Add("name", ReasonRequired, "second")
	p.Add("type", ReasonImmutable, "again")
	p.Add("type", ReasonInvalidType, "other reason")
	e, ok := AsError(p.Err())
	want := []Detail{{"type", ReasonImmutable}, {"name", ReasonRequired}, {"type", ReasonInvalidType}}
	if !ok || e.Code != CodeValidation || e.Message != "first" || !slices.Equal(e.Details, want) {
		t.Fatalf("Err() = %+v, want first and %v", e, want)
	}
}
