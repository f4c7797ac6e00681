package blocks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

func mustDecodeOne(t *testing.T, s string) *Block {
	t.Helper()
	bs, err := Decode(json.RawMessage("["+s+"]"), "children", nil)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return bs[0]
}

func TestDecodeUpdate(t *testing.T) {
	para := mustDecodeOne(t, `{"type":"paragraph","paragraph":{"rich_text":[{"text":{"content":"a"}}],"text_color":"red","background_color":"blue"}}`)
	table := mustDecodeOne(t, `{"type":"table","table":{"table_width":2,"children":[{"type":"table_row","table_row":{"cells":[[],[]]}}]}}`)
	row := table.Children[0]
	img := mustDecodeOne(t, `{"type":"image","image":{"external":{"url":"https://x.test/a.png"},"caption_align":"right"}}`)
	imgRead := `{"caption":[],"type":"external","external":{"url":"https://x.test/a.png"}`
	cases := []struct {
		name    string
		current *Block
		body    string
		want    string // content JSON after the merge; "" when no content changes
		trash   string
		details []quire.Detail
	}{
		{"default clears only its own channel", para, `{"paragraph":{"text_color":"default"}}`,
			`{"rich_text":[` + plainItem("a") + `],"text_color":"default","background_color":"blue"}`, "", nil},
		{"legacy colour sets one channel", para, `{"paragraph":{"color":"green_background"}}`,
			`{"rich_text":[` + plainItem("a") + `],"text_color":"red","background_color":"green"}`, "", nil},
		{"rich text replaced", para, `{"type":"paragraph","paragraph":{"rich_text":[]}}`,
			`{"rich_text":[],"text_color":"red","background_color":"blue"}`, "", nil},
		{"text_align set", para, `{"paragraph":{"text_align":"center"}}`,
			`{"rich_text":[` + plainItem("a") + `],"text_color":"red","background_color":"blue","text_align":"center"}`, "", nil},
		{"caption_align cleared by null, text_align set", img, `{"image":{"caption_align":null,"text_align":"right"}}`, imgRead + `,"text_align":"right"}`, "", nil},
		{"caption_align kept", img, `{"image":{"caption":[]}}`, imgRead + `,"caption_align":"right"}`, "", nil},
		{"bad text_align", para, `{"paragraph":{"text_align":"middle"}}`, "", "", []quire.Detail{det("paragraph.text_align", "invalid_value")}},
		{"trash only", para, `{"in_trash":true}`, "", "true", nil},
		{"both", para, `{"in_trash":false,"paragraph":{}}`, `{"rich_text":[` + plainItem("a") + `],"text_color":"red","background_color":"blue"}`, "false", nil},
		{"headers change", table, `{"table":{"has_row_header":true,"table_width":2}}`, `{"table_width":2,"has_column_header":false,"has_row_header":true}`, "", nil},
		{"type immutable by key", para, `{"heading_1":{"rich_text":[]}}`, "", "", []quire.Detail{det("type", "immutable")}},
		{"type immutable by type", para, `{"type":"quote"}`, "", "", []quire.Detail{det("type", "immutable")}},
		{"width immutable", table, `{"table":{"table_width":3}}`, "", "", []quire.Detail{det("table.table_width", "immutable")}},
		{"row keeps its width", row, `{"table_row":{"cells":[[]]}}`, "", "", []quire.Detail{det("table_row.cells", "invalid_value")}},
		{"no children here", para, `{"paragraph":{"children":[]}}`, "", "", []quire.Detail{det("paragraph.children", "unknown_field")}},
		{"unknown field", para, `{"archived":true}`, "", "", []quire.Detail{det("archived", "unknown_field")}},
		{"in_trash type", para, `{"in_trash":"yes"}`, "", "", []quire.Detail{det("in_trash", "invalid_type")}},
		{"content problems", para, `{"paragraph":{"rich_text":[{"text":{"content":"` + strings.Repeat("a", 2001) + `"}}]}}`, "", "", []quire.Detail{det("paragraph.rich_text[0].text.content", "too_long")}},
		{"read-only", &Block{Type: "child_page", Content: Content{Title: "x"}}, `{"child_page":{"title":"y"}}`, "", "", []quire.Detail{det("type", "invalid_value")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := string(MarshalContent(tc.current))
			body, err := jsonbody.Parse([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			u, err := DecodeUpdate(tc.current, body)
			if string(MarshalContent(tc.current)) != before {
				t.Fatalf("DecodeUpdate modified the current block")
			}
			if tc.details != nil {
				checkDetails(t, err, tc.details)
				return
			}
			if err != nil {
				t.Fatalf("DecodeUpdate: %v", err)
			}
			got := ""
			if u.Block != nil {
				got = string(MarshalContent(u.Block))
			}
			if got != tc.want {
				t.Fatalf("merged\n got %s\nwant %s", got, tc.want)
			}
			trash := ""
			if u.InTrash != nil {
				trash = map[bool]string{true: "true", false: "false"}[*u.InTrash]
			}
			if trash != tc.trash {
				t.Fatalf("in_trash = %q, want %q", trash, tc.trash)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	good := []*Block{
		{Type: "paragraph", Content: Content{RichText: Plain("x")}},
		{Type: "table", Content: Content{TableWidth: 1}, Children: []*Block{{Type: "table_row", Content: Content{Cells: []RichText{Plain("a")}}}}},
	}
	if err := Validate(good, "children", nil, RequestLimits); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	bad := []*Block{
		{Type: "paragraph", Content: Content{RichText: Plain(strings.Repeat("a", 2001)), TextColor: "mauve"}},
		{Type: "code", Content: Content{Language: "klingon"}},
		{Type: "child_page"},
		{Type: "toggle", Children: []*Block{{Type: "toggle", Children: []*Block{{Type: "toggle", Children: []*Block{{Type: "divider"}}}}}}},
	}
	err := Validate(bad, "children", nil, RequestLimits)
	checkDetails(t, err, []quire.Detail{
		det("children[0].paragraph.rich_text[0].text.content", "too_long"),
		det("children[0].paragraph.text_color", "invalid_value"),
		det("children[1].code.language", "invalid_value"),
		det("children[2].type", "invalid_value"),
		det("children[3].toggle.children[0].toggle.children[0].toggle.children", "invalid_value"),
	})
	if err := Validate(bad[3:], "children", nil, Limits{}); err != nil {
		t.Fatalf("no depth limit: %v", err)
	}
}
