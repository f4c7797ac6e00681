package blocks

import (
	"encoding/json"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
)

// FuzzDecode: any input is answered without a panic, every error is a *quire.Error whose
// details all name a path (a validation error has some), and whatever decodes encodes to JSON that decodes again to the
// same canonical bytes.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`[{"type":"paragraph","paragraph":{"rich_text":[{"text":{"content":"a","link":{"url":"https://x.test"}},"annotations":{"bold":true,"color":"red"}}]}}]`,
		`[{"type":"table","table":{"table_width":2,"children":[{"type":"table_row","table_row":{"cells":[[],[]]}}]}}]`,
		`[{"type":"toggle","toggle":{"rich_text":[],"children":[{"type":"toggle","toggle":{"rich_text":[],"children":[{"type":"toggle","toggle":{"rich_text":[]}}]}}]}}]`,
		`[{"type":"callout","callout":{"rich_text":[{"mention":{"date":{"start":"2024-01-01"}}}],"icon":{"emoji":"💡"}}}]`,
		`[{"type":"image","image":{"file_upload":{"id":"11111111-1111-4111-8111-111111111111"}}}]`,
		`[{"type":"column_list","column_list":{"children":[{"type":"column","column":{"children":[]}}]}}]`,
		`[{"type":"toggle","toggle":{"rich_text":[],"text_align":"center"},"children":[{"quote":{"rich_text":[]},"children":[]}]}]`,
		`[{"type":"audio","audio":{"external":{"url":"https://x.test/a.mp3"},"caption_align":"right","text_align":null}}]`,
		`[{"type":"marquee"},{"type":"child_page","child_page":{}}]`,
		`{}`, `[1,"x",null]`, `[{"type":null}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		bs, err := Decode(json.RawMessage(data), "children", nil)
		if err != nil {
			e, ok := err.(*quire.Error)
			if !ok {
				t.Fatalf("error %T is not a *quire.Error: %v", err, err)
			}
			if len(e.Details) == 0 && e.Code != quire.CodeInvalidJSON { // jsonbody says where JSON breaks
				t.Fatalf("error without details: %v", e)
			}
			for _, d := range e.Details {
				if d.Path == "" || d.Reason == "" {
					t.Fatalf("detail without path or reason: %v", e)
				}
			}
			return
		}
		if err := Validate(bs, "children", nil, RequestLimits); err != nil {
			t.Fatalf("decoded blocks do not validate: %v", err)
		}
		_ = Walk(bs, func(_ int, b *Block) error {
			raw := MarshalContent(b)
			if !json.Valid(raw) {
				t.Fatalf("invalid canonical JSON %s", raw)
			}
			back, err := UnmarshalContent(b.Type, raw)
			if err != nil {
				t.Fatalf("UnmarshalContent: %v", err)
			}
			if again := MarshalContent(back); string(again) != string(raw) {
				t.Fatalf("stored content changed:\n%s\n%s", raw, again)
			}
			return nil
		})
	})
}
