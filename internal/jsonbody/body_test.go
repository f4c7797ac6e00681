package jsonbody

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
)

// TestBody_Unknown: a body refuses the keys its description does not list, hidden ones taken,
// each at its key with the body's noun, in key order; an object inside a body (UnknownAt) at
// its key under the object's path.
func TestBody_Unknown(t *testing.T) {
	fields := []Field{{Name: "title"}, {Name: "archived", Hidden: true}}
	for _, tc := range []struct {
		name     string
		body     Body
		path     string
		in       map[string]any
		want     []quire.Detail
		wantText string
	}{
		{"all taken", Body{Noun: "A page", Fields: fields}, "", map[string]any{"title": 1, "archived": true}, nil, ""},
		{"named by its noun", Body{Noun: "A page", Fields: fields}, "", map[string]any{"z": 1, "title": 1, "a.b": 2},
			[]quire.Detail{{Path: `"a.b"`, Reason: quire.ReasonUnknownField}, {Path: "z", Reason: quire.ReasonUnknownField}}, "A page has no field a.b."},
		{"no noun", Body{Fields: fields}, "", map[string]any{"x": 1},
			[]quire.Detail{{Path: "x", Reason: quire.ReasonUnknownField}}, `Unknown field "x".`},
		{"inside a body", Body{Noun: "A sort", Fields: fields}, "sorts[1]", map[string]any{"title": 1, "x": 1},
			[]quire.Detail{{Path: "sorts[1].x", Reason: quire.ReasonUnknownField}}, "A sort has no field x."},
		{"inside, no noun", Body{Fields: fields}, "parent", map[string]any{"": 1},
			[]quire.Detail{{Path: `parent.""`, Reason: quire.ReasonUnknownField}}, `Unknown field "".`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p quire.Problems
			if tc.path == "" {
				tc.body.Unknown(&p, tc.in)
			} else {
				tc.body.UnknownAt(&p, tc.path, tc.in)
			}
			err := p.Err()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Unknown = %v, want nothing", err)
				}
				return
			}
			var qe *quire.Error
			if !errors.As(err, &qe) {
				t.Fatalf("Unknown = %v, want a *quire.Error", err)
			}
			if diff := cmp.Diff(tc.want, qe.Details); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
			if qe.Message != tc.wantText {
				t.Errorf("message %q, want %q", qe.Message, tc.wantText)
			}
		})
	}
}

// TestBody_Takes: a key the body lists is taken without a problem; another is reported once.
func TestBody_Takes(t *testing.T) {
	b := Body{Noun: "A move", Fields: []Field{{Name: "parent"}}}
	var p quire.Problems
	if !b.Takes(&p, "parent") || p.Err() != nil {
		t.Fatalf("Takes(parent) = false or reported %v", p.Err())
	}
	if b.Takes(&p, "after_all") {
		t.Fatal("Takes(after_all) = true")
	}
	if len(p.Details) != 1 || p.Details[0].Path != "after_all" {
		t.Fatalf("details %+v, want one at after_all", p.Details)
	}
}
