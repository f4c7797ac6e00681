package blocks

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
)

const (
	id1 = "11111111-1111-4111-8111-111111111111"
	id2 = "22222222-2222-4222-8222-222222222222"
)

// readShape renders a decoded forest as the API reads it, children nested for comparison.
func readShape(t *testing.T, bs []*Block) any {
	t.Helper()
	out := make([]any, 0, len(bs))
	for _, b := range bs {
		var m map[string]any
		if err := json.Unmarshal(AppendBlock(nil, b), &m); err != nil {
			t.Fatalf("AppendBlock wrote invalid JSON: %v", err)
		}
		if len(b.Children) > 0 {
			m["children"] = readShape(t, b.Children)
		}
		out = append(out, m)
	}
	return out
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

// plainItem is the read shape of an unstyled text item.
func plainItem(s string) string {
	return `{"type":"text","text":{"content":"` + s + `","link":null},"annotations":{"bold":false,"italic":false,"strikethrough":false,"underline":false,"code":false,"text_color":"default","background_color":"default"},"plain_text":"` + s + `","href":null}`
}

const noColor = `"text_color":"default","background_color":"default"`

func TestDecode_everyType(t *testing.T) {
	hi := `[{"text":{"content":"hi"}}]`
	cases := []struct {
		name, in, want string
	}{
		{"paragraph", `{"type":"paragraph","paragraph":{"rich_text":` + hi + `}}`,
			`{"object":"block","type":"paragraph","paragraph":{"rich_text":[` + plainItem("hi") + `],` + noColor + `}}`},
		{"paragraph without object type and with legacy background", `{"object":"block","paragraph":{"rich_text":[],"color":"red_background"}}`,
			`{"object":"block","type":"paragraph","paragraph":{"rich_text":[],"text_color":"default","background_color":"red"}}`},
		{"paragraph both channels", `{"type":"paragraph","paragraph":{"rich_text":[],"text_color":"blue","background_color":"light_yellow"}}`,
			`{"object":"block","type":"paragraph","paragraph":{"rich_text":[],"text_color":"blue","background_color":"light_yellow"}}`},
		{"paragraph legacy text colour", `{"type":"paragraph","paragraph":{"rich_text":[],"color":"red"}}`,
			`{"object":"block","type":"paragraph","paragraph":{"rich_text":[],"text_color":"red","background_color":"default"}}`},
		{"heading_1 toggleable with children", `{"type":"heading_1","heading_1":{"rich_text":` + hi + `,"is_toggleable":true,"children":[{"type":"paragraph","paragraph":{"rich_text":[]}}]}}`,
			`{"object":"block","type":"heading_1","heading_1":{"rich_text":[` + plainItem("hi") + `],"is_toggleable":true,` + noColor + `},"children":[{"object":"block","type":"paragraph","paragraph":{"rich_text":[],` + noColor + `}}]}`},
		{"heading_2", `{"type":"heading_2","heading_2":{"rich_text":[]}}`,
			`{"object":"block","type":"heading_2","heading_2":{"rich_text":[],"is_toggleable":false,` + noColor + `}}`},
		{"heading_3", `{"type":"heading_3","heading_3":{"rich_text":[],"color":"gray"}}`,
			`{"object":"block","type":"heading_3","heading_3":{"rich_text":[],"is_toggleable":false,"text_color":"gray","background_color":"default"}}`},
		{"bulleted_list_item", `{"type":"bulleted_list_item","bulleted_list_item":{"rich_text":` + hi + `}}`,
			`{"object":"block","type":"bulleted_list_item","bulleted_list_item":{"rich_text":[` + plainItem("hi") + `],` + noColor + `}}`},
		{"numbered_list_item", `{"type":"numbered_list_item","numbered_list_item":{"rich_text":[]}}`,
			`{"object":"block","type":"numbered_list_item","numbered_list_item":{"rich_text":[],` + noColor + `}}`},
		{"to_do", `{"type":"to_do","to_do":{"rich_text":[],"checked":true}}`,
			`{"object":"block","type":"to_do","to_do":{"rich_text":[],"checked":true,` + noColor + `}}`},
		{"toggle", `{"type":"toggle","toggle":{"rich_text":[]}}`,
			`{"object":"block","type":"toggle","toggle":{"rich_text":[],` + noColor + `}}`},
		{"quote", `{"type":"quote","quote":{"rich_text":[],"background_color":"gray"}}`,
			`{"object":"block","type":"quote","quote":{"rich_text":[],"text_color":"default","background_color":"gray"}}`},
		{"callout emoji", `{"type":"callout","callout":{"rich_text":[],"icon":{"type":"emoji","emoji":"💡"}}}`,
			`{"object":"block","type":"callout","callout":{"rich_text":[],"icon":{"type":"emoji","emoji":"💡"},` + noColor + `}}`},
		{"callout external icon", `{"type":"callout","callout":{"rich_text":[],"icon":{"external":{"url":"https://x.test/i.png"}}}}`,
			`{"object":"block","type":"callout","callout":{"rich_text":[],"icon":{"type":"external","external":{"url":"https://x.test/i.png"}},` + noColor + `}}`},
		{"callout uploaded icon", `{"type":"callout","callout":{"rich_text":[],"icon":{"type":"file_upload","file_upload":{"id":"` + id1 + `"}}}}`,
			`{"object":"block","type":"callout","callout":{"rich_text":[],"icon":{"type":"file_upload","file_upload":{"id":"` + id1 + `"}},` + noColor + `}}`},
		{"callout no icon", `{"type":"callout","callout":{"rich_text":[],"icon":null}}`,
			`{"object":"block","type":"callout","callout":{"rich_text":[],"icon":null,` + noColor + `}}`},
		{"code", `{"type":"code","code":{"rich_text":` + hi + `,"language":"go","caption":` + hi + `}}`,
			`{"object":"block","type":"code","code":{"rich_text":[` + plainItem("hi") + `],"caption":[` + plainItem("hi") + `],"language":"go"}}`},
		{"code default language", `{"type":"code","code":{"rich_text":[]}}`,
			`{"object":"block","type":"code","code":{"rich_text":[],"caption":[],"language":"plain text"}}`},
		{"divider", `{"type":"divider","divider":{}}`, `{"object":"block","type":"divider","divider":{}}`},
		{"equation", `{"type":"equation","equation":{"expression":"e^{i\\pi}+1=0"}}`,
			`{"object":"block","type":"equation","equation":{"expression":"e^{i\\pi}+1=0"}}`},
		{"image external", `{"type":"image","image":{"type":"external","external":{"url":"https://x.test/a.png"}}}`,
			`{"object":"block","type":"image","image":{"caption":[],"type":"external","external":{"url":"https://x.test/a.png"}}}`},
		{"file uploaded", `{"type":"file","file":{"file_upload":{"id":"` + id1 + `"},"name":"a.pdf","caption":` + hi + `}}`,
			`{"object":"block","type":"file","file":{"caption":[` + plainItem("hi") + `],"type":"file_upload","file_upload":{"id":"` + id1 + `"},"name":"a.pdf"}}`},
		{"pdf read shape written back", `{"type":"pdf","pdf":{"type":"file","file":{"url":"https://x.test/f","expiry_time":"2030-01-01T00:00:00.000Z"}}}`,
			`{"object":"block","type":"pdf","pdf":{"caption":[],"type":"file","file":{"url":"https://x.test/f","expiry_time":"2030-01-01T00:00:00.000Z"}}}`},
		{"video", `{"type":"video","video":{"external":{"url":"https://x.test/v.mp4"}}}`,
			`{"object":"block","type":"video","video":{"caption":[],"type":"external","external":{"url":"https://x.test/v.mp4"}}}`},
		{"audio uploaded, aligned", `{"type":"audio","audio":{"type":"file_upload","file_upload":{"id":"` + id1 + `"},"caption":` + hi + `,"caption_align":"center","text_align":"right"}}`,
			`{"object":"block","type":"audio","audio":{"caption":[` + plainItem("hi") + `],"type":"file_upload","file_upload":{"id":"` + id1 + `"},"text_align":"right","caption_align":"center"}}`},
		{"audio external", `{"audio":{"external":{"url":"https://x.test/a.mp3"}}}`,
			`{"object":"block","type":"audio","audio":{"caption":[],"type":"external","external":{"url":"https://x.test/a.mp3"}}}`},
		{"paragraph aligned", `{"type":"paragraph","paragraph":{"rich_text":[],"text_align":"center"}}`,
			`{"object":"block","type":"paragraph","paragraph":{"rich_text":[],` + noColor + `,"text_align":"center"}}`},
		{"aligns null are not set", `{"type":"image","image":{"external":{"url":"https://x.test/a.png"},"text_align":null,"caption_align":null}}`,
			`{"object":"block","type":"image","image":{"caption":[],"type":"external","external":{"url":"https://x.test/a.png"}}}`},
		{"toggle with children beside type", `{"type":"toggle","toggle":{"rich_text":[],"text_align":"left"},"children":[{"type":"paragraph","paragraph":{"rich_text":[]}}]}`,
			`{"object":"block","type":"toggle","toggle":{"rich_text":[],` + noColor + `,"text_align":"left"},"children":[{"object":"block","type":"paragraph","paragraph":{"rich_text":[],` + noColor + `}}]}`},
		{"bookmark", `{"type":"bookmark","bookmark":{"url":"https://x.test","caption":[]}}`,
			`{"object":"block","type":"bookmark","bookmark":{"caption":[],"url":"https://x.test"}}`},
		{"embed", `{"type":"embed","embed":{"url":"https://x.test/e"}}`,
			`{"object":"block","type":"embed","embed":{"caption":[],"url":"https://x.test/e"}}`},
		{"table", `{"type":"table","table":{"table_width":2,"has_column_header":true,"children":[{"type":"table_row","table_row":{"cells":[` + hi + `,[]]}}]}}`,
			`{"object":"block","type":"table","table":{"table_width":2,"has_column_header":true,"has_row_header":false},"children":[{"object":"block","type":"table_row","table_row":{"cells":[[` + plainItem("hi") + `],[]]}}]}`},
		{"column_list", `{"type":"column_list","column_list":{"children":[{"type":"column","column":{"children":[{"type":"divider","divider":{}}]}},{"type":"column","column":{"children":[{"type":"divider","divider":{}}]}}]}}`,
			`{"object":"block","type":"column_list","column_list":{},"children":[{"object":"block","type":"column","column":{},"children":[{"object":"block","type":"divider","divider":{}}]},{"object":"block","type":"column","column":{},"children":[{"object":"block","type":"divider","divider":{}}]}]}`},
		{"link_to_page page", `{"type":"link_to_page","link_to_page":{"type":"page_id","page_id":"` + id1 + `"}}`,
			`{"object":"block","type":"link_to_page","link_to_page":{"type":"page_id","page_id":"` + id1 + `"}}`},
		{"link_to_page database", `{"type":"link_to_page","link_to_page":{"database_id":"` + id2 + `"}}`,
			`{"object":"block","type":"link_to_page","link_to_page":{"type":"database_id","database_id":"` + id2 + `"}}`},
		{"table_of_contents", `{"type":"table_of_contents","table_of_contents":{}}`, `{"object":"block","type":"table_of_contents","table_of_contents":{}}`},
		{"breadcrumb", `{"type":"breadcrumb","breadcrumb":{}}`, `{"object":"block","type":"breadcrumb","breadcrumb":{}}`},
		{"rich text kinds", `{"type":"paragraph","paragraph":{"rich_text":[
			{"type":"text","text":{"content":"a","link":{"url":"https://x.test"}},"annotations":{"bold":true,"code":true,"color":"blue","background_color":"red"}},
			{"type":"equation","equation":{"expression":"x^2"},"annotations":{"italic":true}},
			{"type":"mention","mention":{"type":"user","user":{"object":"user","id":"` + id1 + `"}}},
			{"mention":{"page":{"id":"` + id2 + `"}}},
			{"type":"mention","mention":{"type":"date","date":{"start":"2024-05-01","end":"2024-05-03T10:00:00Z"}},"plain_text":"ignored","href":null}]}}`,
			`{"object":"block","type":"paragraph","paragraph":{"rich_text":[
			{"type":"text","text":{"content":"a","link":{"url":"https://x.test"}},"annotations":{"bold":true,"italic":false,"strikethrough":false,"underline":false,"code":true,"text_color":"blue","background_color":"red"},"plain_text":"a","href":"https://x.test"},
			{"type":"equation","equation":{"expression":"x^2"},"annotations":{"bold":false,"italic":true,"strikethrough":false,"underline":false,"code":false,"text_color":"default","background_color":"default"},"plain_text":"x^2","href":null},
			{"type":"mention","mention":{"type":"user","user":{"object":"user","id":"` + id1 + `"}},"annotations":{"bold":false,"italic":false,"strikethrough":false,"underline":false,"code":false,"text_color":"default","background_color":"default"},"plain_text":"@Anonymous","href":null},
			{"type":"mention","mention":{"type":"page","page":{"id":"` + id2 + `"}},"annotations":{"bold":false,"italic":false,"strikethrough":false,"underline":false,"code":false,"text_color":"default","background_color":"default"},"plain_text":"Untitled","href":null},
			{"type":"mention","mention":{"type":"date","date":{"start":"2024-05-01","end":"2024-05-03T10:00:00Z","time_zone":null}},"annotations":{"bold":false,"italic":false,"strikethrough":false,"underline":false,"code":false,"text_color":"default","background_color":"default"},"plain_text":"2024-05-01 → 2024-05-03T10:00:00Z","href":null}],` + noColor + `}}`},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bs, err := Decode(json.RawMessage("["+tc.in+"]"), "children", nil)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			got := readShape(t, bs)
			want := decodeJSON(t, "["+tc.want+"]")
			if !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				t.Fatalf("read shape\n got %s\nwant %s", g, tc.want)
			}
			// What is read can be written back unchanged, and the stored form reads back.
			again, err := DecodeValue(stripReadOnly(got), "children", nil)
			if err != nil {
				t.Fatalf("writing the read shape back: %v", err)
			}
			if g := readShape(t, again); !reflect.DeepEqual(g, want) {
				t.Fatalf("read shape written back changed")
			}
			// … and so can it with children beside type, as the original service's clients send them.
			beside, err := DecodeValue(got, "children", nil)
			if err != nil {
				t.Fatalf("writing the read shape back, children beside type: %v", err)
			}
			if g := readShape(t, beside); !reflect.DeepEqual(g, want) {
				t.Fatalf("read shape written back with children beside type changed")
			}
			_ = Walk(bs, func(_ int, b *Block) error {
				seen[b.Type] = true
				st, err := UnmarshalContent(b.Type, MarshalContent(b))
				if err != nil {
					t.Fatalf("UnmarshalContent: %v", err)
				}
				if !reflect.DeepEqual(MarshalContent(st), MarshalContent(b)) {
					t.Fatalf("stored %s content does not read back:\n%s\n%s", b.Type, MarshalContent(st), MarshalContent(b))
				}
				return nil
			})
		})
	}
	for _, typ := range Types {
		if Writable(typ) && !seen[typ] {
			t.Errorf("no case writes a %s block", typ)
		}
	}
}

// stripReadOnly turns the test's nested read shape back into a request: children move into
// the type object.
func stripReadOnly(v any) any {
	list := v.([]any)
	out := make([]any, len(list))
	for i, e := range list {
		m := e.(map[string]any)
		n := map[string]any{}
		for k, v := range m {
			n[k] = v
		}
		if ch, ok := n["children"]; ok {
			delete(n, "children")
			typ := n["type"].(string)
			body := map[string]any{}
			for k, v := range n[typ].(map[string]any) {
				body[k] = v
			}
			body["children"] = stripReadOnly(ch)
			n[typ] = body
		}
		out[i] = n
	}
	return out
}

func TestDecode_problems(t *testing.T) {
	long := strings.Repeat("é", MaxTextLength+1)
	many := "[" + strings.TrimSuffix(strings.Repeat(`{"text":{"content":"x"}},`, 101), ",") + "]"
	para := func(body string) string { return `[{"type":"paragraph","paragraph":` + body + `}]` }
	nest := func(levels int) string {
		s := `{"type":"toggle","toggle":{"rich_text":[]}}`
		for i := 0; i < levels; i++ {
			s = `{"type":"toggle","toggle":{"rich_text":[],"children":[` + s + `]}}`
		}
		return "[" + s + "]"
	}
	blocks1001 := "[" + strings.TrimSuffix(strings.Repeat(`{"type":"toggle","toggle":{"rich_text":[],"children":[`+strings.TrimSuffix(strings.Repeat(`{"type":"divider","divider":{}},`, 90), ",")+`]}},`, 11), ",") + "]"
	cases := []struct {
		name, in string
		want     []quire.Detail
	}{
		{"not an array", `{}`, []quire.Detail{det("children", "invalid_type")}},
		{"block not an object", `[1]`, []quire.Detail{det("children[0]", "invalid_type")}},
		{"unknown type", `[{"type":"marquee","marquee":{}}]`, []quire.Detail{det("children[0].type", "invalid_value"), det("children[0].marquee", "unknown_field")}},
		{"children beside type and inside", `[{"type":"toggle","toggle":{"rich_text":[],"children":[]},"children":[]}]`, []quire.Detail{det("children[0].children", "invalid_value")}},
		{"children beside a divider", `[{"type":"divider","divider":{},"children":[]}]`, []quire.Detail{det("children[0].children", "invalid_value")}},
		{"children beside a plain heading", `[{"type":"heading_2","heading_2":{"rich_text":[]},"children":[]}]`, []quire.Detail{det("children[0].children", "invalid_value")}},
		{"problem in children beside type", `[{"type":"toggle","toggle":{"rich_text":[]},"children":[{"type":"quote","quote":{"rich_text":[]},"children":[{"type":"paragraph","paragraph":{}}]}]}]`,
			[]quire.Detail{det("children[0].children[0].children[0].paragraph.rich_text", "required")}},
		{"three levels deep beside type", `[{"type":"toggle","toggle":{"rich_text":[]},"children":[{"type":"toggle","toggle":{"rich_text":[]},"children":[{"type":"toggle","toggle":{"rich_text":[]},"children":[]}]}]}]`,
			[]quire.Detail{det("children[0].children[0].children[0].children", "invalid_value")}},
		{"table rows beside type", `[{"type":"table","table":{"table_width":2},"children":[{"type":"table_row","table_row":{"cells":[[]]}}]}]`,
			[]quire.Detail{det("children[0].children[0].table_row.cells", "invalid_value")}},
		{"bad text_align", para(`{"rich_text":[],"text_align":"justify"}`), []quire.Detail{det("children[0].paragraph.text_align", "invalid_value")}},
		{"text_align not a string", `[{"type":"video","video":{"external":{"url":"https://x.test/v"},"text_align":1}}]`, []quire.Detail{det("children[0].video.text_align", "invalid_type")}},
		{"bad caption_align", `[{"type":"embed","embed":{"url":"https://x.test/e","caption_align":"middle"}}]`, []quire.Detail{det("children[0].embed.caption_align", "invalid_value")}},
		{"no caption_align on text", para(`{"rich_text":[],"caption_align":"left"}`), []quire.Detail{det("children[0].paragraph.caption_align", "unknown_field")}},
		{"no text_align on code", `[{"type":"code","code":{"rich_text":[],"text_align":"left"}}]`, []quire.Detail{det("children[0].code.text_align", "unknown_field")}},
		{"audio source required", `[{"type":"audio","audio":{"caption":[]}}]`, []quire.Detail{det("children[0].audio.external", "required")}},
		{"type missing", `[{"object":"block"}]`, []quire.Detail{det("children[0].type", "required")}},
		{"type object missing", `[{"type":"paragraph"}]`, []quire.Detail{det("children[0].paragraph", "required")}},
		{"type not a string", `[{"type":7}]`, []quire.Detail{det("children[0].type", "invalid_type")}},
		{"object not block", `[{"object":"page","type":"divider","divider":{}}]`, []quire.Detail{det("children[0].object", "invalid_value")}},
		{"child_page is read-only", `[{"type":"child_page","child_page":{"title":"x"}}]`, []quire.Detail{det("children[0].type", "invalid_value")}},
		{"child_database is read-only", `[{"type":"child_database","child_database":{"title":"x"}}]`, []quire.Detail{det("children[0].type", "invalid_value")}},
		{"rich_text required", para(`{}`), []quire.Detail{det("children[0].paragraph.rich_text", "required")}},
		{"unknown field in block", `[{"type":"divider","divider":{},"id":"x"}]`, []quire.Detail{det("children[0].id", "unknown_field")}},
		{"unknown field in type object", `[{"type":"divider","divider":{"size":1}}]`, []quire.Detail{det("children[0].divider.size", "unknown_field")}},
		{"unknown field in item", para(`{"rich_text":[{"text":{"content":"a"},"bold":true}]}`), []quire.Detail{det("children[0].paragraph.rich_text[0].bold", "unknown_field")}},
		{"unknown annotation", para(`{"rich_text":[{"text":{"content":"a"},"annotations":{"blink":true}}]}`), []quire.Detail{det("children[0].paragraph.rich_text[0].annotations.blink", "unknown_field")}},
		{"wrong JSON types", para(`{"rich_text":[{"text":{"content":5}},{"text":{"content":"a"},"annotations":{"bold":"yes"}}],"color":1}`),
			[]quire.Detail{det("children[0].paragraph.rich_text[0].text.content", "invalid_type"), det("children[0].paragraph.rich_text[1].annotations.bold", "invalid_type"), det("children[0].paragraph.color", "invalid_type")}},
		{"content too long", para(`{"rich_text":[{"text":{"content":"ok"}},{"text":{"content":"` + long + `"}}]}`), []quire.Detail{det("children[0].paragraph.rich_text[1].text.content", "too_long")}},
		{"too many items", para(`{"rich_text":` + many + `}`), []quire.Detail{det("children[0].paragraph.rich_text", "too_many")}},
		{"too many children", "[" + strings.TrimSuffix(strings.Repeat(`{"type":"divider","divider":{}},`, 101), ",") + "]", []quire.Detail{det("children", "too_many")}},
		{"too many blocks", blocks1001, []quire.Detail{det("children", "too_many")}},
		{"three levels deep", nest(3), []quire.Detail{det("children[0].toggle.children[0].toggle.children[0].toggle.children", "invalid_value")}},
		{"two levels deep is fine", nest(2), nil},
		{"bad text colour", para(`{"rich_text":[],"text_color":"light_red"}`), []quire.Detail{det("children[0].paragraph.text_color", "invalid_value")}},
		{"bad background colour", para(`{"rich_text":[],"background_color":"black"}`), []quire.Detail{det("children[0].paragraph.background_color", "invalid_value")}},
		{"bad legacy colour", para(`{"rich_text":[],"color":"black_background"}`), []quire.Detail{det("children[0].paragraph.color", "invalid_value")}},
		{"legacy colour contradicts channel", para(`{"rich_text":[],"color":"red","text_color":"blue"}`), []quire.Detail{det("children[0].paragraph.color", "invalid_value")}},
		{"annotation colour", para(`{"rich_text":[{"text":{"content":"a"},"annotations":{"color":"mauve"}}]}`), []quire.Detail{det("children[0].paragraph.rich_text[0].annotations.color", "invalid_value")}},
		{"caption annotation colour", `[{"type":"code","code":{"rich_text":[],"caption":[{"text":{"content":"a"},"annotations":{"background_color":"black"}}]}}]`, []quire.Detail{det("children[0].code.caption[0].annotations.background_color", "invalid_value")}},
		{"cell annotation colour", `[{"type":"table","table":{"table_width":1,"children":[{"type":"table_row","table_row":{"cells":[[{"text":{"content":"a"},"annotations":{"text_color":"x"}}]]}}]}}]`, []quire.Detail{det("children[0].table.children[0].table_row.cells[0][0].annotations.text_color", "invalid_value")}},
		{"no colour on code", `[{"type":"code","code":{"rich_text":[],"color":"red"}}]`, []quire.Detail{det("children[0].code.color", "unknown_field")}},
		{"bad link", para(`{"rich_text":[{"text":{"content":"a","link":{"url":"javascript:alert(1)"}}}]}`), []quire.Detail{det("children[0].paragraph.rich_text[0].text.link.url", "invalid_value")}},
		{"bad mention id", para(`{"rich_text":[{"mention":{"user":{"id":"nope"}}}]}`), []quire.Detail{det("children[0].paragraph.rich_text[0].mention.user.id", "invalid_value")}},
		{"bad date", para(`{"rich_text":[{"mention":{"date":{"start":"yesterday"}}}]}`), []quire.Detail{det("children[0].paragraph.rich_text[0].mention.date.start", "invalid_value")}},
		{"expression too long", para(`{"rich_text":[{"equation":{"expression":"` + strings.Repeat("x", 1001) + `"}}]}`), []quire.Detail{det("children[0].paragraph.rich_text[0].equation.expression", "too_long")}},
		{"item kind", para(`{"rich_text":[{"type":"image"}]}`), []quire.Detail{det("children[0].paragraph.rich_text[0].type", "invalid_value")}},
		{"children of a non-toggle heading", `[{"type":"heading_1","heading_1":{"rich_text":[],"children":[]}}]`, []quire.Detail{det("children[0].heading_1.children", "invalid_value")}},
		{"children of a divider", `[{"type":"divider","divider":{"children":[]}}]`, []quire.Detail{det("children[0].divider.children", "unknown_field")}},
		{"language", `[{"type":"code","code":{"rich_text":[],"language":"klingon"}}]`, []quire.Detail{det("children[0].code.language", "invalid_value")}},
		{"equation required", `[{"type":"equation","equation":{}}]`, []quire.Detail{det("children[0].equation.expression", "required")}},
		{"media source required", `[{"type":"image","image":{}}]`, []quire.Detail{det("children[0].image.external", "required")}},
		{"media two sources", `[{"type":"image","image":{"type":"external","external":{"url":"https://x.test"},"file_upload":{"id":"` + id1 + `"}}}]`, []quire.Detail{det("children[0].image.file_upload", "invalid_value")}},
		{"upload id", `[{"type":"video","video":{"file_upload":{"id":"x"}}}]`, []quire.Detail{det("children[0].video.file_upload.id", "invalid_value")}},
		{"bookmark url required", `[{"type":"bookmark","bookmark":{}}]`, []quire.Detail{det("children[0].bookmark.url", "required")}},
		{"url too long", `[{"type":"embed","embed":{"url":"https://x.test/` + strings.Repeat("a", 2000) + `"}}]`, []quire.Detail{det("children[0].embed.url", "too_long")}},
		{"emoji", `[{"type":"callout","callout":{"rich_text":[],"icon":{"emoji":""}}}]`, []quire.Detail{det("children[0].callout.icon.emoji", "invalid_value")}},
		{"table width required", `[{"type":"table","table":{"children":[]}}]`, []quire.Detail{det("children[0].table.table_width", "required"), det("children[0].table.children", "invalid_value")}},
		{"table width range", `[{"type":"table","table":{"table_width":0,"children":[{"type":"table_row","table_row":{"cells":[]}}]}}]`, []quire.Detail{det("children[0].table.table_width", "out_of_range")}},
		{"table width type", `[{"type":"table","table":{"table_width":1.5,"children":[{"type":"table_row","table_row":{"cells":[[]]}}]}}]`, []quire.Detail{det("children[0].table.table_width", "invalid_type")}},
		{"table children required", `[{"type":"table","table":{"table_width":1}}]`, []quire.Detail{det("children[0].table.children", "required")}},
		{"table holds rows", `[{"type":"table","table":{"table_width":1,"children":[{"type":"divider","divider":{}}]}}]`, []quire.Detail{det("children[0].table.children[0].type", "invalid_value")}},
		{"row width", `[{"type":"table","table":{"table_width":2,"children":[{"type":"table_row","table_row":{"cells":[[]]}}]}}]`, []quire.Detail{det("children[0].table.children[0].table_row.cells", "invalid_value")}},
		{"row outside a table", `[{"type":"table_row","table_row":{"cells":[]}}]`, []quire.Detail{det("children[0].type", "invalid_value")}},
		{"column outside a list", `[{"type":"column","column":{"children":[{"type":"divider","divider":{}}]}}]`, []quire.Detail{det("children[0].type", "invalid_value")}},
		{"one column", `[{"type":"column_list","column_list":{"children":[{"type":"column","column":{"children":[{"type":"divider","divider":{}}]}}]}}]`, []quire.Detail{det("children[0].column_list.children", "invalid_value")}},
		{"empty column", `[{"type":"column_list","column_list":{"children":[{"type":"column","column":{"children":[]}},{"type":"column","column":{"children":[{"type":"divider","divider":{}}]}}]}}]`, []quire.Detail{det("children[0].column_list.children[0].column.children", "invalid_value")}},
		{"link_to_page target", `[{"type":"link_to_page","link_to_page":{}}]`, []quire.Detail{det("children[0].link_to_page.page_id", "required")}},
		{"link_to_page id", `[{"type":"link_to_page","link_to_page":{"page_id":"x"}}]`, []quire.Detail{det("children[0].link_to_page.page_id", "invalid_value")}},
		{"every problem at once", `[{"type":"paragraph","paragraph":{"rich_text":[{"text":{}}],"x":1}},{"type":"nope"}]`,
			[]quire.Detail{det("children[0].paragraph.x", "unknown_field"), det("children[0].paragraph.rich_text[0].text.content", "required"), det("children[1].type", "invalid_value")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(json.RawMessage(tc.in), "children", nil)
			checkDetails(t, err, tc.want)
		})
	}
}

func det(path, reason string) quire.Detail { return quire.Detail{Path: path, Reason: reason} }

func checkDetails(t *testing.T, err error, want []quire.Detail) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	e, ok := quire.AsError(err)
	if !ok || e.Code != quire.CodeValidation && e.Code != quire.CodeUnsupportedBlockType {
		t.Fatalf("error = %v, want a validation_error", err)
	}
	got := make([]quire.Detail, len(e.Details))
	for i, d := range e.Details {
		got[i] = det(d.Path, d.Reason) // limit and actual: TestDecode_limitAndActual
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("details\n got %v\nwant %v", got, want)
	}
}

// Details of a broken limit carry the limit and what was found, as the original service's do.
func TestDecode_limitAndActual(t *testing.T) {
	rep := func(s string, n int) string { return strings.TrimSuffix(strings.Repeat(s+",", n), ",") }
	cases := []struct {
		name, in string
		want     quire.Detail
	}{
		{"children", "[" + rep(`{"divider":{}}`, 101) + "]", quire.Beyond("children", quire.ReasonTooMany, 100, 101)},
		{"blocks in a request", "[" + rep(`{"toggle":{"rich_text":[],"children":[`+rep(`{"divider":{}}`, 100)+`]}}`, 10) + "]",
			quire.Beyond("children", quire.ReasonTooMany, 1000, 1010)},
		{"rich text items", `[{"paragraph":{"rich_text":[` + rep(`{"text":{"content":"x"}}`, 102) + `]}}]`,
			quire.Beyond("children[0].paragraph.rich_text", quire.ReasonTooMany, 100, 102)},
		{"text content", `[{"quote":{"rich_text":[{"text":{"content":"` + strings.Repeat("é", 2003) + `"}}]}}]`,
			quire.Beyond("children[0].quote.rich_text[0].text.content", quire.ReasonTooLong, 2000, 2003)},
		{"url", `[{"embed":{"url":"https://x.test/` + strings.Repeat("a", 2000) + `"}}]`,
			quire.Beyond("children[0].embed.url", quire.ReasonTooLong, 2000, 2015)},
		{"table too narrow", `[{"table":{"table_width":0},"children":[{"table_row":{"cells":[]}}]}]`,
			quire.Beyond("children[0].table.table_width", quire.ReasonOutOfRange, 1, 0)},
		{"table too wide", `[{"table":{"table_width":101},"children":[{"table_row":{"cells":[]}}]}]`,
			quire.Beyond("children[0].table.table_width", quire.ReasonOutOfRange, 100, 101)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(json.RawMessage(tc.in), "children", nil)
			e, ok := quire.AsError(err)
			if !ok || len(e.Details) == 0 || !reflect.DeepEqual(e.Details[0], tc.want) {
				t.Fatalf("error = %v, want first detail %s %s limit %d actual %d", err, tc.want.Path, tc.want.Reason, *tc.want.Limit, *tc.want.Actual)
			}
		})
	}
	err := Validate([]*Block{{Type: "table_row", Content: Content{Cells: make([]RichText, 101)}}}, "markdown", &Block{Type: "table"}, Limits{})
	e, ok := quire.AsError(err)
	if !ok || !reflect.DeepEqual(e.Details[0], quire.Beyond("markdown[0].table_row.cells", quire.ReasonTooMany, 100, 101)) {
		t.Fatalf("Validate too many cells = %v", err)
	}
}

func TestDecode_underParent(t *testing.T) {
	table := &Block{Type: "table", Content: Content{TableWidth: 2}}
	row := `[{"type":"table_row","table_row":{"cells":[[],[]]}}]`
	if _, err := Decode(json.RawMessage(row), "children", table); err != nil {
		t.Fatalf("row under table: %v", err)
	}
	_, err := Decode(json.RawMessage(`[{"type":"table_row","table_row":{"cells":[[]]}}]`), "children", table)
	checkDetails(t, err, []quire.Detail{det("children[0].table_row.cells", "invalid_value")})
	_, err = Decode(json.RawMessage(`[{"type":"divider","divider":{}}]`), "children", &Block{Type: "column_list"})
	checkDetails(t, err, []quire.Detail{det("children[0].type", "invalid_value")})
	_, err = Decode(json.RawMessage(`[]`), "children", &Block{Type: "divider"})
	checkDetails(t, err, []quire.Detail{det("children", "invalid_value")})
	if _, err := Decode(json.RawMessage(`[{"type":"divider","divider":{}}]`), "children", &Block{Type: "child_page"}); err != nil {
		t.Fatalf("under a child page: %v", err)
	}
	_, err = Decode(json.RawMessage(`[`), "children", nil)
	if e, ok := quire.AsError(err); !ok || e.Code != quire.CodeInvalidJSON {
		t.Fatalf("bad JSON: %v", err)
	}
}

// An unknown or read-only block type answers the original service's unsupported_block_type,
// named at the type; the first problem decides the code, every problem is listed.
func TestDecode_unsupportedBlockType(t *testing.T) {
	cases := []struct{ name, in, code string }{
		{"unknown", `[{"type":"marquee","marquee":{}}]`, quire.CodeUnsupportedBlockType},
		{"read-only", `[{"type":"child_page","child_page":{"title":"x"}}]`, quire.CodeUnsupportedBlockType},
		{"nested, beside type", `[{"type":"toggle","toggle":{"rich_text":[]},"children":[{"type":"child_database","child_database":{}}]}]`, quire.CodeUnsupportedBlockType},
		{"after a validation problem", `[{"type":"paragraph","paragraph":{}},{"type":"marquee"}]`, quire.CodeValidation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(json.RawMessage(tc.in), "children", nil)
			if e, ok := quire.AsError(err); !ok || e.Code != tc.code {
				t.Fatalf("error = %v, want code %s", err, tc.code)
			}
		})
	}
	err := Validate([]*Block{{Type: "child_page"}}, "markdown", nil, Limits{})
	if e, ok := quire.AsError(err); !ok || e.Code != quire.CodeUnsupportedBlockType || e.Details[0].Path != "markdown[0].type" {
		t.Fatalf("Validate child_page = %v", err)
	}
}
