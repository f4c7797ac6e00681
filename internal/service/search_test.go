package service

import (
	"encoding/json"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
)

func FuzzDecodeSearch(f *testing.F) {
	for _, s := range []string{
		`{"query":"roadmap","filter":{"property":"object","value":"page"},"sort":{"timestamp":"created_time","direction":"ascending"},"page_size":5}`,
		`{"query":"\"a b\" c","start_cursor":"x"}`,
		`{"filter":{"value":"mind_map"},"sort":{}}`,
		`{"query":null,"page_size":100.5}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var body map[string]any
		if json.Unmarshal([]byte(s), &body) != nil {
			return
		}
		r, err := DecodeSearch(body)
		if err != nil {
			qe, ok := quire.AsError(err)
			if !ok || qe.Code != quire.CodeValidation || len(qe.Details) == 0 {
				t.Fatalf("DecodeSearch(%s) = %v, want a validation_error with details", s, err)
			}
			return
		}
		if r.PageSize < 1 || r.PageSize > 100 || len(searchTerms(r.Query)) > MaxQueryTerms {
			t.Fatalf("DecodeSearch(%s) accepted %+v", s, r)
		}
		for _, term := range searchTerms(r.Query) {
			if term == "" {
				t.Fatalf("empty term from %q", r.Query)
			}
		}
	})
}
