package blocks

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestShortRichText: the short form of every stored kind of rich text reads as its long form
// does, each plain item is its text alone, LongRichText gives the long form back (and leaves a
// long form's bytes as they are), and a short form reads the same through encoding/json.
func TestShortRichText(t *testing.T) {
	cases := append(storedRichTexts, RichText{NewText("a", Annotations{}, ""), NewText("", Annotations{}, ""),
		{Type: "text", Text: &Text{Content: "x"}, PlainText: "y"}, {Type: "text", Text: &Text{Content: "h"}, PlainText: "h", Href: "https://x.test"}})
	for _, rt := range cases {
		if rt == nil {
			continue
		}
		long, short := AppendRichText(nil, rt), AppendShortRichText(nil, rt)
		want, err := UnmarshalRichText(long)
		if err != nil {
			t.Fatal(err)
		}
		got, err := UnmarshalRichText(short)
		if err != nil {
			t.Fatalf("UnmarshalRichText(%s): %v", short, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s reads other than %s (-long +short):\n%s", short, long, diff)
		}
		plain := 0
		for i := range rt {
			if rt[i].IsPlain() {
				plain++
			}
		}
		var items []json.RawMessage
		if err := json.Unmarshal(short, &items); err != nil {
			t.Fatal(err)
		}
		strs := 0
		for _, it := range items {
			if it[0] == '"' {
				strs++
			}
		}
		if len(items) != len(rt) || strs != plain {
			t.Errorf("%s: %d items, %d of them strings; want %d, %d", short, len(items), strs, len(rt), plain)
		}
		if back, err := LongRichText(short); err != nil || string(back) != string(long) {
			t.Errorf("LongRichText(%s) = %s, %v; want %s", short, back, err, long)
		}
		if same, err := LongRichText(long); err != nil || string(same) != string(long) {
			t.Errorf("LongRichText(%s) = %s, %v", long, same, err)
		}
	}
	if got := string(AppendShortRichText(nil, Plain(`Record <1> & "2"`))); got != `["Record <1> & \"2\""]` {
		t.Errorf("a plain title's short form is %s", got)
	}
	// A long form whose plain items' colours are stored as "" (an older writer's) keeps its bytes.
	odd := `[{"type":"text","text":{"content":"a","link":null},"annotations":{"bold":false,"italic":false,"strikethrough":false,"underline":false,"code":false,"text_color":"","background_color":"default"},"plain_text":"a","href":null}]`
	if got, err := LongRichText([]byte(odd)); err != nil || string(got) != odd {
		t.Errorf("LongRichText(%s) = %s, %v", odd, got, err)
	}
	for _, bad := range []string{`["a",1]`, `["a"`, `[null,"a"]`, `"a"`, `["\ud800"]`} {
		want, wantErr := unmarshalShortJSON([]byte(bad))
		got, err := UnmarshalRichText([]byte(bad))
		if (err != nil) != (wantErr != nil) || (err == nil && !cmp.Equal(got, want)) {
			t.Errorf("UnmarshalRichText(%s) = %v, %v; encoding/json %v, %v", bad, got, err, want, wantErr)
		}
	}
}
