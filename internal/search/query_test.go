package search

import (
	"slices"
	"testing"
)

func TestSearchTerms(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", nil},
		{"  roadmap  ", []string{"roadmap"}},
		{"roadmap money", []string{"roadmap", "money"}},
		{"Roadmap roadmap ROADMAP", []string{"Roadmap"}},
		{`"next year" budget`, []string{"next year", "budget"}},
		{`"unclosed phrase`, []string{"unclosed", "phrase"}},
		{`a"b`, []string{"a", "b"}},
		{"東京タワー\u3000北京", []string{"東京タワー", "北京"}}, // an ideographic space separates
		{"ＡＢＣ ｶﾀｶﾅ", []string{"ABC", "カタカナ"}},      // NFKC: full-width Latin, half-width kana
		{`""`, nil},
	} {
		if got := Terms(tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}
