package blocks

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/jsonread"
)

// storedRichTexts are rich texts of every kind AppendRichText writes: text with and without a
// link, every annotation and colour, equations, the four mentions, and strings that need
// escapes.
var storedRichTexts = []RichText{
	nil,
	{},
	Plain("Record 42"),
	{NewText("bold <b> & \"quoted\"\n\ttab", Annotations{Bold: true, Italic: true, Strikethrough: true, Underline: true, Code: true,
		TextColor: "red", BackgroundColor: "blue_background"}, "https://example.com/?a=1&b=2")},
	{NewEquation(`e^{i\pi} + 1 = 0`, Annotations{}), NewText("é ü 漢字 😀 \u2028", Annotations{TextColor: "default"}, "")},
	{mention("user", "11111111-1111-4111-8111-111111111111", nil), mention("page", "22222222-2222-4222-8222-222222222222", nil),
		mention("database", "33333333-3333-4333-8333-333333333333", nil),
		mention("date", "", &Date{Start: "2024-01-02", End: "2024-01-05T10:00:00Z", TimeZone: "Europe/Paris"}),
		mention("date", "", &Date{Start: "2024-01-02"})},
}

func mention(typ, id string, d *Date) Item {
	it := Item{Type: "mention", Mention: &Mention{Type: typ, ID: id, Date: d}}
	it.Fill()
	return it
}

// TestReadRichText: what AppendRichText writes is read by hand (not left to encoding/json),
// and reads as encoding/json reads it.
func TestReadRichText(t *testing.T) {
	for _, rt := range storedRichTexts {
		raw := AppendRichText(nil, rt)
		if rt == nil {
			raw = []byte("null")
		}
		r := jsonread.New(raw)
		got := ReadRichText(&r)
		if !r.End() {
			t.Errorf("ReadRichText left %s to encoding/json", raw)
			continue
		}
		want, err := unmarshalRichTextJSON(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-encoding/json +ReadRichText):\n%s", raw, diff)
		}
		if again := AppendRichText(nil, got); rt != nil && string(again) != string(raw) {
			t.Errorf("read back as %s, want %s", again, raw)
		}
	}
}

// FuzzReadRichText: whatever ReadRichText reads to the end, encoding/json reads to the same
// rich text; what it leaves, UnmarshalRichText still answers as encoding/json does.
func FuzzReadRichText(f *testing.F) {
	for _, rt := range storedRichTexts {
		f.Add(AppendRichText(nil, rt))
	}
	for _, s := range []string{`null`, `[]`, `[{"type":"text","text":null}]`, `[{"type":"text","text":{"content":"a"},"text":{"link":{"url":"b"}}}]`,
		`[{"Type":"text"}]`, `[{"type":"mention","mention":{"type":"user","user":{"object":"bot","id":"x"},"page":null}}]`,
		`[{"annotations":{"bold":null,"text_color":null}}]`, `[{"plain_text":"\ud800"}]`, `[{"plain_text":"a\u0000b"}]`, "[{\"href\":\"\xff\"}]",
		`[{"equation":{"expression":"x"},"text":{"content":"y"}}] `, `[{"type":"text"},]`, `{"type":"text"}`,
		`["a",{"type":"text","text":{"content":"b"}},""]`, `["a",null]`, `["a",1]`, `["\u003c\ud800"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want, wantErr := unmarshalRichTextJSON(raw)
		r := jsonread.New(raw)
		got := ReadRichText(&r)
		if r.End() {
			if wantErr != nil {
				t.Fatalf("ReadRichText read %q, encoding/json: %v", raw, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%q (-encoding/json +ReadRichText):\n%s", raw, diff)
			}
		}
		got, err := UnmarshalRichText(raw)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("UnmarshalRichText(%q) error %v, encoding/json %v", raw, err, wantErr)
		}
		if diff := cmp.Diff(want, got); err == nil && diff != "" {
			t.Fatalf("UnmarshalRichText(%q) (-encoding/json +got):\n%s", raw, diff)
		}
	})
}
