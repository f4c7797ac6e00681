package blocks

import (
	"reflect"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/jsonbody"
)

// fastParents are blocks an append may go under, for Under: none, a page's child_page, the
// containers that take text blocks, and those that take none or only rows.
var fastParents = []*Block{nil, {Type: "child_page"}, {Type: "toggle"}, {Type: "to_do"},
	{Type: "heading_2"}, {Type: "heading_2", Content: Content{IsToggleable: true}}, {Type: "table", Content: Content{TableWidth: 2}},
	{Type: "column_list"}, {Type: "column"}, {Type: "paragraph"}, {Type: "divider"}}

// checkFast fails unless every body ReadAppend takes decodes, through the reference path
// (jsonbody.Parse, then DecodeValue of its children), without a problem and to the same
// blocks, under each parent Under takes them for.
func checkFast(t *testing.T, body []byte) bool {
	a, ok := ReadAppend(body)
	if !ok {
		return false
	}
	tree, err := jsonbody.Parse(body)
	if err != nil {
		t.Fatalf("ReadAppend took %q, which jsonbody.Parse refuses: %v", body, err)
	}
	if len(tree) != 1 {
		t.Fatalf("ReadAppend took %q, whose keys are %v", body, jsonbody.SortedKeys(tree))
	}
	for _, parent := range fastParents {
		got, ok := a.Under(parent)
		if !ok {
			continue
		}
		want, err := DecodeValue(tree["children"], "children", parent)
		if err != nil {
			t.Fatalf("ReadAppend took %q under %+v, which DecodeValue refuses: %v", body, parent, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ReadAppend(%q) under %+v:\n got %#v\nwant %#v", body, parent, got, want)
		}
	}
	return true
}

func TestReadAppend_Takes(t *testing.T) {
	for _, body := range []string{
		`{"children":[{"type":"paragraph","paragraph":{"rich_text":[{"type":"text","text":{"content":"a"}}]}}]}`,
		`{"children":[{"paragraph":{"rich_text":[{"text":{"content":"a"}}]},"type":"paragraph"}]}`,
		`{"children":[{"paragraph":{"rich_text":[]}}]}`,
		"{ \"children\" :\n [ {\"to_do\": {\"checked\": true, \"rich_text\": [ {\"text\": {\"content\": \"é \\u00e9 \\n\"}} ] } } ]\n}\n",
		`{"children":[{"heading_1":{"rich_text":[{"text":{"content":"x"}},{"text":{"content":""}}]}},{"quote":{"rich_text":[]}}]}`,
		`{"children":[{"paragraph":{"rich_text":[{"text":{"content":"` + strings.Repeat("é", MaxTextLength) + `"}}]}}]}`,
	} {
		if !checkFast(t, []byte(body)) {
			t.Errorf("ReadAppend gave up on %q", body)
		}
	}
}

// TestReadAppend_GivesUp: bodies the fast path leaves to the reference path, which answers
// them (some are errors, some are shapes it reads and the fast path does not).
func TestReadAppend_GivesUp(t *testing.T) {
	p := func(rt string) string { return `{"children":[{"paragraph":{"rich_text":[` + rt + `]}}]}` }
	for name, body := range map[string]string{
		"not an object":           `[]`,
		"no children":             `{}`,
		"empty children":          `{"children":[]}`,
		"after":                   `{"children":[{"paragraph":{"rich_text":[]}}],"after":null}`,
		"duplicate children":      `{"children":[{"paragraph":{"rich_text":[]}}],"children":[{"paragraph":{"rich_text":[]}}]}`,
		"duplicate type":          `{"children":[{"type":"paragraph","type":"quote","paragraph":{"rich_text":[]}}]}`,
		"duplicate rich_text":     `{"children":[{"paragraph":{"rich_text":[],"rich_text":[]}}]}`,
		"duplicate content":       p(`{"text":{"content":"a","content":"b"}}`),
		"two type objects":        `{"children":[{"paragraph":{"rich_text":[]},"quote":{"rich_text":[]}}]}`,
		"type disagrees":          `{"children":[{"type":"quote","paragraph":{"rich_text":[]}}]}`,
		"unknown type":            `{"children":[{"type":"marquee","marquee":{}}]}`,
		"object key":              `{"children":[{"object":"block","paragraph":{"rich_text":[]}}]}`,
		"children inside":         `{"children":[{"toggle":{"rich_text":[],"children":[]}}]}`,
		"children beside":         `{"children":[{"toggle":{"rich_text":[]},"children":[]}]}`,
		"colour":                  `{"children":[{"paragraph":{"rich_text":[],"color":"red"}}]}`,
		"checked off a to_do":     `{"children":[{"paragraph":{"rich_text":[],"checked":true}}]}`,
		"no rich_text":            `{"children":[{"paragraph":{}}]}`,
		"null rich_text":          `{"children":[{"paragraph":{"rich_text":null}}]}`,
		"annotations":             p(`{"text":{"content":"a"},"annotations":{"bold":true}}`),
		"link":                    p(`{"text":{"content":"a","link":{"url":"https://x.test"}}}`),
		"plain_text":              p(`{"text":{"content":"a"},"plain_text":"a"}`),
		"mention":                 p(`{"type":"mention","mention":{"user":{"id":"11111111-1111-4111-8111-111111111111"}}}`),
		"type without text":       p(`{"type":"text"}`),
		"text type mismatch":      p(`{"type":"equation","text":{"content":"a"}}`),
		"content not a string":    p(`{"text":{"content":1}}`),
		"escaped NUL":             p(`{"text":{"content":"a\u0000"}}`),
		"dashless id":             p(`{"text":{"content":"0123456789abcdef0123456789ABCDEF"}}`),
		"invalid UTF-8":           p("{\"text\":{\"content\":\"\xff\"}}"),
		"too long":                p(`{"text":{"content":"` + strings.Repeat("a", MaxTextLength+1) + `"}}`),
		"101 items":               p(strings.Repeat(`{"text":{"content":"a"}},`, MaxArray) + `{"text":{"content":"a"}}`),
		"101 blocks":              `{"children":[` + strings.Repeat(`{"paragraph":{"rich_text":[]}},`, MaxArray) + `{"paragraph":{"rich_text":[]}}]}`,
		"trailing comma":          `{"children":[{"paragraph":{"rich_text":[]}},]}`,
		"more after the object":   `{"children":[{"paragraph":{"rich_text":[]}}]} {}`,
		"escaped key":             `{"childre\u006e":[{"paragraph":{"rich_text":[]}}]}`,
		"whitespace before colon": "{\"children\"\x0b:[{\"paragraph\":{\"rich_text\":[]}}]}",
	} {
		if checkFast(t, []byte(body)) {
			t.Errorf("%s: ReadAppend took %q", name, body)
		}
	}
}

// TestReadAppend_Under: a parent that takes no text blocks, or whose rows must be checked,
// leaves the blocks to the reference path, which reports the problem.
func TestReadAppend_Under(t *testing.T) {
	a, ok := ReadAppend([]byte(`{"children":[{"paragraph":{"rich_text":[]}}]}`))
	if !ok {
		t.Fatal("ReadAppend gave up")
	}
	for _, parent := range []*Block{{Type: "table", Content: Content{TableWidth: 2}}, {Type: "column_list"}, {Type: "divider"}, {Type: "heading_1"}} {
		if _, ok := a.Under(parent); ok {
			t.Errorf("Under(%s) took the paragraph", parent.Type)
		}
		tree, err := a.Tree()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeValue(tree, "children", parent); err == nil {
			t.Errorf("DecodeValue under %s took the paragraph", parent.Type)
		}
	}
	for _, parent := range []*Block{nil, {Type: "child_page"}, {Type: "toggle"}, {Type: "column"}} {
		if bs, ok := a.Under(parent); !ok || len(bs) != 1 {
			t.Errorf("Under(%+v) = %d blocks, %v", parent, len(bs), ok)
		}
	}
}

// FuzzReadAppend: whatever append body ReadAppend takes, the reference path (jsonbody.Parse,
// DecodeValue) reads without a problem, to deep-equal blocks under every parent Under takes.
func FuzzReadAppend(f *testing.F) {
	for _, s := range []string{
		`{"children":[{"type":"paragraph","paragraph":{"rich_text":[{"type":"text","text":{"content":"a"}}]}}]}`,
		`{"children":[{"to_do":{"rich_text":[{"text":{"content":"b"}}],"checked":false}},{"heading_3":{"rich_text":[]}}]}`,
		"{ \"children\" : [ { \"quote\" : { \"rich_text\" : [ { \"text\" : { \"content\" : \"\\u00e9\\ud83d\\ude00\" } } ] } } ] }",
		`{"children":[{"toggle":{"rich_text":[{"text":{"content":"0123456789abcdef0123456789abcdef"}}]}}]}`,
		`{"children":[{"numbered_list_item":{"rich_text":[{"text":{"content":"\u0000"}}]}}]}`,
		`{"children":[{"bulleted_list_item":{"rich_text":[{"text":{"content":"x"},"type":"text"}]},"type":"bulleted_list_item"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkFast(t, body) })
}

// BenchmarkDecodeAppend: an append of 100 paragraphs, as the speed table's row sends it, by
// the fast path and by the reference path (jsonbody.Parse, DecodeValue).
func BenchmarkDecodeAppend(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"children":[`)
	for i := range 100 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"paragraph":{"rich_text":[{"text":{"content":"We measured the error budget after the pager and the error budget."}}]},"type":"paragraph"}`)
	}
	sb.WriteString(`]}`)
	body := []byte(sb.String())
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			a, ok := ReadAppend(body)
			if !ok {
				b.Fatal("gave up")
			}
			if bs, ok := a.Under(nil); !ok || len(bs) != 100 {
				b.Fatal("Under")
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			tree, err := jsonbody.Parse(body)
			if err != nil {
				b.Fatal(err)
			}
			if bs, err := DecodeValue(tree["children"], "children", nil); err != nil || len(bs) != 100 {
				b.Fatal(err)
			}
		}
	})
}
