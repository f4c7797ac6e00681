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
	want := []Detail{{Path: "type", Reason: ReasonImmutable}, {Path: "name", Reason: ReasonRequired}, {Path: "type", Reason: ReasonInvalidType}}
	if !ok || e.Code != CodeValidation || e.Message != "first" || !slices.Equal(e.Details, want) {
		t.Fatalf("Err() = %+v, want first and %v", e, want)
	}
}

// TestProblems_Unsupported: the first problem's code is the answer's; later ones never change it.
func TestProblems_Unsupported(t *testing.T) {
	for _, tc := range []struct {
		name    string
		add     func(p *Problems)
		want    string
		details int
	}{
		{"unsupported first", func(p *Problems) {
			p.Unsupported(CodeUnsupportedFilter, "filter.number.x", ReasonUnknownField, "no x")
			p.Add("sorts", ReasonInvalidType, "bad sorts")
		}, CodeUnsupportedFilter, 2},
		{"validation first", func(p *Problems) {
			p.Add("sorts", ReasonInvalidType, "bad sorts")
			p.Unsupported(CodeUnsupportedSort, "sorts[0].property", ReasonInvalidValue, "cannot sort")
		}, CodeValidation, 2},
		{"beyond a limit", func(p *Problems) {
			p.AddDetail(Beyond("children", ReasonTooMany, 100, 101), "at most 100")
		}, CodeValidation, 1},
		{"merged unsupported first", func(p *Problems) {
			p.Merge(&Error{Code: CodeUnsupportedBlockType, Message: "no", Details: []Detail{{Path: "children[0].type", Reason: ReasonInvalidValue}}})
			p.Add("parent", ReasonRequired, "parent")
		}, CodeUnsupportedBlockType, 2},
		{"merged after a validation problem", func(p *Problems) {
			p.Add("parent", ReasonRequired, "parent")
			p.Merge(&Error{Code: CodeUnsupportedBlockType, Message: "no", Details: []Detail{{Path: "children[0].type", Reason: ReasonInvalidValue}}})
		}, CodeValidation, 2},
	} {
		var p Problems
		tc.add(&p)
		e, ok := AsError(p.Err())
		if !ok || e.Code != tc.want || e.Status() != 400 || len(e.Details) != tc.details {
			t.Errorf("%s: Err() = %+v, want %s with every detail", tc.name, e, tc.want)
		}
	}
	d := Beyond("children", ReasonTooMany, 100, 101)
	if d.Limit == nil || *d.Limit != 100 || d.Actual == nil || *d.Actual != 101 {
		t.Errorf("Beyond = %+v", d)
	}
	var p Problems
	p.Merge(&Error{Code: CodeValidation, Message: "long", Details: []Detail{d}})
	if e, _ := AsError(p.Err()); e == nil || e.Details[0].Limit == nil || *e.Details[0].Actual != 101 {
		t.Errorf("Merge lost the limit: %+v", e)
	}
}
