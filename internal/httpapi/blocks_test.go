package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// rtJSON is the read shape of an unstyled text item, for expected JSON literals.
func rtJSON(s string) string {
	return `{"type":"text","text":{"content":"` + s + `","link":null},"annotations":{"bold":false,"italic":false,` +
		`"strikethrough":false,"underline":false,"code":false,"text_color":"default","background_color":"default"},` +
		`"plain_text":"` + s + `","href":null}`
}

// blockWant is a block object a test expects, without id and times.
func (e *env) blockWant(parent map[string]any, hasChildren, inTrash bool, typ string, content any) map[string]any {
	return map[string]any{
		"object": "block", "parent": parent,
		"created_by": map[string]any{"object": "user", "id": e.owner.ID}, "last_edited_by": map[string]any{"object": "user", "id": e.owner.ID},
		"has_children": hasChildren, "in_trash": inTrash, "type": typ, typ: content,
	}
}

func blockParent(id string) map[string]any { return map[string]any{"type": "block_id", "block_id": id} }

// TestBlocks_EveryType writes every writable block type of contract §5 and reads each back
// (in the append answer, alone and among the page's children) in its exact canonical shape.
func TestBlocks_EveryType(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Every type")
		target := e.mkPage(t, e.full, wsParent, "Target")
		const u = "https://example.com/f.png"
		dflt := `"text_color":"default","background_color":"default"`
		rt := func(s string) string { return `[` + rtJSON(s) + `]` }
		cases := []struct {
			typ, in, want string
			kids          []string // expected types of the children
		}{
			{"paragraph", `{"rich_text":[{"text":{"content":"p"}}],"text_color":"blue","background_color":"yellow"}`,
				`{"rich_text":` + rt("p") + `,"text_color":"blue","background_color":"yellow"}`, nil},
			{"heading_1", `{"rich_text":[{"text":{"content":"h1"}}]}`, `{"rich_text":` + rt("h1") + `,"is_toggleable":false,` + dflt + `}`, nil},
			{"heading_2", `{"rich_text":[{"text":{"content":"h2"}}],"is_toggleable":true,"children":[{"paragraph":{"rich_text":[]}}]}`,
				`{"rich_text":` + rt("h2") + `,"is_toggleable":true,` + dflt + `}`, []string{"paragraph"}},
			{"heading_3", `{"rich_text":[{"text":{"content":"h3"}}],"color":"green"}`,
				`{"rich_text":` + rt("h3") + `,"is_toggleable":false,"text_color":"green","background_color":"default"}`, nil},
			{"bulleted_list_item", `{"rich_text":[{"text":{"content":"b"}}],"children":[{"bulleted_list_item":{"rich_text":[]}}]}`,
				`{"rich_text":` + rt("b") + `,` + dflt + `}`, []string{"bulleted_list_item"}},
			{"numbered_list_item", `{"rich_text":[{"text":{"content":"n"}}]}`, `{"rich_text":` + rt("n") + `,` + dflt + `}`, nil},
			{"to_do", `{"rich_text":[{"text":{"content":"t"}}],"checked":true}`, `{"rich_text":` + rt("t") + `,"checked":true,` + dflt + `}`, nil},
			{"toggle", `{"rich_text":[{"text":{"content":"tg"}}],"children":[{"paragraph":{"rich_text":[]}}]}`,
				`{"rich_text":` + rt("tg") + `,` + dflt + `}`, []string{"paragraph"}},
			{"quote", `{"rich_text":[{"text":{"content":"q"}}],"color":"gray_background"}`,
				`{"rich_text":` + rt("q") + `,"text_color":"default","background_color":"gray"}`, nil},
			{"callout", `{"rich_text":[{"text":{"content":"c"}}],"icon":{"emoji":"💡"}}`,
				`{"rich_text":` + rt("c") + `,"icon":{"type":"emoji","emoji":"💡"},` + dflt + `}`, nil},
			{"code", `{"rich_text":[{"text":{"content":"x := 1"}}],"language":"go","caption":[{"text":{"content":"cap"}}]}`,
				`{"rich_text":` + rt("x := 1") + `,"caption":` + rt("cap") + `,"language":"go"}`, nil},
			{"divider", `{}`, `{}`, nil},
			{"equation", `{"expression":"e=mc^2"}`, `{"expression":"e=mc^2"}`, nil},
			{"image", `{"type":"external","external":{"url":"` + u + `"}}`, `{"caption":[],"type":"external","external":{"url":"` + u + `"}}`, nil},
			{"file", `{"external":{"url":"` + u + `"},"name":"f.png","caption":[{"text":{"content":"cap"}}]}`,
				`{"caption":` + rt("cap") + `,"type":"external","external":{"url":"` + u + `"},"name":"f.png"}`, nil},
			{"pdf", `{"external":{"url":"` + u + `"}}`, `{"caption":[],"type":"external","external":{"url":"` + u + `"}}`, nil},
			{"video", `{"external":{"url":"` + u + `"}}`, `{"caption":[],"type":"external","external":{"url":"` + u + `"}}`, nil},
			{"bookmark", `{"url":"https://example.com"}`, `{"caption":[],"url":"https://example.com"}`, nil},
			{"embed", `{"url":"https://example.com/e"}`, `{"caption":[],"url":"https://example.com/e"}`, nil},
			{"table", `{"table_width":2,"has_column_header":true,"children":[
				{"table_row":{"cells":[[{"text":{"content":"a"}}],[{"text":{"content":"b"}}]]}},
				{"table_row":{"cells":[[],[{"text":{"content":"d"}}]]}}]}`,
				`{"table_width":2,"has_column_header":true,"has_row_header":false}`, []string{"table_row", "table_row"}},
			{"column_list", `{"children":[{"column":{"children":[{"paragraph":{"rich_text":[]}}]}},{"column":{"children":[{"divider":{}}]}}]}`,
				`{}`, []string{"column", "column"}},
			{"link_to_page", `{"type":"page_id","page_id":"` + target + `"}`, `{"type":"page_id","page_id":"` + target + `"}`, nil},
			{"table_of_contents", `{}`, `{}`, nil},
			{"breadcrumb", `{}`, `{}`, nil},
		}
		var children []any
		for _, tc := range cases {
			children = append(children, map[string]any{"type": tc.typ, tc.typ: jsonValue(t, "%s", tc.in)})
		}
		r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": children})
		wantOK(t, r, 200)
		created := objects(r.body["results"])
		if len(created) != len(cases) || r.body["has_more"] != false || r.body["next_cursor"] != nil {
			t.Fatalf("append answered %d blocks: %s", len(created), r.raw)
		}
		listed := e.kids(t, page)
		if diff := cmp.Diff(created, listed); diff != "" {
			t.Fatalf("children differ from the append answer (-append +list):\n%s", diff)
		}
		for i, tc := range cases {
			t.Run(tc.typ, func(t *testing.T) {
				want := e.blockWant(pageParent(page), tc.kids != nil, false, tc.typ, jsonValue(t, "%s", tc.want))
				if diff := cmp.Diff(want, volatile(t, created[i])); diff != "" {
					t.Fatalf("(-want +got):\n%s", diff)
				}
				id := created[i]["id"].(string)
				g := e.do(http.MethodGet, "/v2/blocks/"+id, e.full, nil)
				wantOK(t, g, 200)
				if g.header.Get("ETag") != `W/"1"` {
					t.Errorf("ETag = %q", g.header.Get("ETag"))
				}
				if diff := cmp.Diff(created[i], g.body); diff != "" {
					t.Fatalf("GET (-append +get):\n%s", diff)
				}
				var kidTypes []string
				for _, k := range e.kids(t, id) {
					kidTypes = append(kidTypes, k["type"].(string))
					if diff := cmp.Diff(blockParent(id), k["parent"]); diff != "" {
						t.Errorf("child's parent (-want +got):\n%s", diff)
					}
				}
				if diff := cmp.Diff(tc.kids, kidTypes); diff != "" {
					t.Fatalf("children (-want +got):\n%s", diff)
				}
			})
		}
		// The rows of the table read back whole; the columns hold their blocks.
		rows := e.kids(t, created[19]["id"].(string))
		wantRow := func(cells string) map[string]any {
			return e.blockWant(blockParent(created[19]["id"].(string)), false, false, "table_row", jsonValue(t, `{"cells":%s}`, cells))
		}
		for i, cells := range []string{`[[` + rtJSON("a") + `],[` + rtJSON("b") + `]]`, `[[],[` + rtJSON("d") + `]]`} {
			if diff := cmp.Diff(wantRow(cells), volatile(t, rows[i])); diff != "" {
				t.Fatalf("row %d (-want +got):\n%s", i, diff)
			}
		}
		col := e.kids(t, created[20]["id"].(string))[1]
		if diff := cmp.Diff(e.blockWant(blockParent(created[20]["id"].(string)), true, false, "column", map[string]any{}), volatile(t, col)); diff != "" {
			t.Fatalf("column (-want +got):\n%s", diff)
		}
	})
}

// TestBlocks_RichText checks the read shape of styled, linked, equation and mention items.
func TestBlocks_RichText(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Rich")
		in := jsonValue(t, `{"paragraph":{"rich_text":[
			{"type":"text","text":{"content":"all","link":{"url":"https://example.com/a"}},
			 "annotations":{"bold":true,"italic":true,"strikethrough":true,"underline":true,"code":true,"text_color":"purple","background_color":"light_blue"}},
			{"text":{"content":"legacy red"},"annotations":{"color":"red"}},
			{"text":{"content":"legacy bg"},"annotations":{"color":"green_background"}},
			{"text":{"content":"both"},"annotations":{"color":"red","background_color":"yellow"}},
			{"equation":{"expression":"x^2"}},
			{"mention":{"date":{"start":"2024-05-01","end":"2024-05-03"}}},
			{"text":{"content":"sent back"},"plain_text":"ignored","href":null}
		]}}`)
		got := e.appendKids(t, page, in)[0]["paragraph"]
		ann := func(over string) string {
			a := map[string]string{"bold": "false", "italic": "false", "strikethrough": "false", "underline": "false", "code": "false",
				"text_color": `"default"`, "background_color": `"default"`}
			for _, kv := range strings.Split(over, ",") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					a[k] = v
				}
			}
			return fmt.Sprintf(`{"bold":%s,"italic":%s,"strikethrough":%s,"underline":%s,"code":%s,"text_color":%s,"background_color":%s}`,
				a["bold"], a["italic"], a["strikethrough"], a["underline"], a["code"], a["text_color"], a["background_color"])
		}
		want := jsonValue(t, `{"rich_text":[
			{"type":"text","text":{"content":"all","link":{"url":"https://example.com/a"}},"annotations":%s,"plain_text":"all","href":"https://example.com/a"},
			{"type":"text","text":{"content":"legacy red","link":null},"annotations":%s,"plain_text":"legacy red","href":null},
			{"type":"text","text":{"content":"legacy bg","link":null},"annotations":%s,"plain_text":"legacy bg","href":null},
			{"type":"text","text":{"content":"both","link":null},"annotations":%s,"plain_text":"both","href":null},
			{"type":"equation","equation":{"expression":"x^2"},"annotations":%s,"plain_text":"x^2","href":null},
			{"type":"mention","mention":{"type":"date","date":{"start":"2024-05-01","end":"2024-05-03","time_zone":null}},"annotations":%s,"plain_text":"2024-05-01 → 2024-05-03","href":null},
			%s
		],"text_color":"default","background_color":"default"}`,
			ann(`bold=true,italic=true,strikethrough=true,underline=true,code=true,text_color="purple",background_color="light_blue"`),
			ann(`text_color="red"`), ann(`background_color="green"`), ann(`text_color="red",background_color="yellow"`), ann(""), ann(""),
			rtJSON("sent back"))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("rich text (-want +got):\n%s", diff)
		}
		for _, tc := range []struct {
			name         string
			item         any
			path, reason string
		}{
			{"unknown colour", map[string]any{"text": map[string]any{"content": "x"}, "annotations": map[string]any{"text_color": "light_red"}},
				"children[0].paragraph.rich_text[0].annotations.text_color", quire.ReasonInvalidValue},
			{"legacy colour contradicts", map[string]any{"text": map[string]any{"content": "x"}, "annotations": map[string]any{"color": "red", "text_color": "blue"}},
				"children[0].paragraph.rich_text[0].annotations.color", quire.ReasonInvalidValue},
			{"unsafe link", map[string]any{"text": map[string]any{"content": "x", "link": map[string]any{"url": "javascript:alert(1)"}}},
				"children[0].paragraph.rich_text[0].text.link.url", quire.ReasonInvalidValue},
			{"no content", map[string]any{"text": map[string]any{}}, "children[0].paragraph.rich_text[0].text.content", quire.ReasonRequired},
			{"bad date", map[string]any{"mention": map[string]any{"date": map[string]any{"start": "soon"}}},
				"children[0].paragraph.rich_text[0].mention.date.start", quire.ReasonInvalidValue},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full,
					map[string]any{"children": []any{blk("paragraph", map[string]any{"rich_text": []any{tc.item}})}})
				wantDetail(t, r, 400, quire.CodeValidation, tc.path, tc.reason)
			})
		}
	})
}

// TestBlocks_Colors: the two channels are independent, the legacy color sets one of them, and
// default clears only its own channel.
func TestBlocks_Colors(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Colours")
		colors := func(b map[string]any, typ string) [2]any {
			c := b[typ].(map[string]any)
			return [2]any{c["text_color"], c["background_color"]}
		}
		for _, tc := range []struct {
			name string
			in   map[string]any
			want [2]any
		}{
			{"none", map[string]any{}, [2]any{"default", "default"}},
			{"legacy text", map[string]any{"color": "red"}, [2]any{"red", "default"}},
			{"legacy background", map[string]any{"color": "red_background"}, [2]any{"default", "red"}},
			{"legacy default", map[string]any{"color": "default"}, [2]any{"default", "default"}},
			{"both explicit", map[string]any{"text_color": "blue", "background_color": "purple_red"}, [2]any{"blue", "purple_red"}},
			{"legacy and the other channel", map[string]any{"color": "brown", "background_color": "light_green"}, [2]any{"brown", "light_green"}},
			{"legacy agreeing with explicit", map[string]any{"color": "orange_background", "background_color": "orange"}, [2]any{"default", "orange"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, typ := range []string{"paragraph", "heading_2", "to_do", "callout", "toggle"} {
					c := map[string]any{"rich_text": []any{}}
					for k, v := range tc.in {
						c[k] = v
					}
					b := e.appendKids(t, page, blk(typ, c))[0]
					if got := colors(b, typ); got != tc.want {
						t.Fatalf("%s colours = %v, want %v", typ, got, tc.want)
					}
				}
			})
		}
		for _, tc := range []struct {
			name string
			in   map[string]any
			path string
		}{
			{"text colour as background", map[string]any{"text_color": "light_red"}, "children[0].paragraph.text_color"},
			{"background colour as text", map[string]any{"background_color": "black"}, "children[0].paragraph.background_color"},
			{"unknown legacy", map[string]any{"color": "mauve"}, "children[0].paragraph.color"},
			{"legacy contradicts", map[string]any{"color": "red", "text_color": "blue"}, "children[0].paragraph.color"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c := map[string]any{"rich_text": []any{}}
				for k, v := range tc.in {
					c[k] = v
				}
				wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": []any{blk("paragraph", c)}}),
					400, quire.CodeValidation, tc.path, quire.ReasonInvalidValue)
			})
		}
		// Updates: each channel keeps its value unless the body sets it.
		id := e.appendKids(t, page, blk("paragraph", map[string]any{"rich_text": []any{txt("c")}, "text_color": "red", "background_color": "yellow"}))[0]["id"].(string)
		for _, step := range []struct {
			name string
			in   map[string]any
			want [2]any
		}{
			{"text only", map[string]any{"text_color": "blue"}, [2]any{"blue", "yellow"}},
			{"rich text only", map[string]any{"rich_text": []any{txt("d")}}, [2]any{"blue", "yellow"}},
			{"default clears the text channel", map[string]any{"text_color": "default"}, [2]any{"default", "yellow"}},
			{"legacy sets text", map[string]any{"color": "pink"}, [2]any{"pink", "yellow"}},
			{"legacy default_background clears the background", map[string]any{"color": "default_background"}, [2]any{"pink", "default"}},
			{"background again", map[string]any{"background_color": "red_orange"}, [2]any{"pink", "red_orange"}},
			{"default clears the background channel", map[string]any{"background_color": "default"}, [2]any{"pink", "default"}},
		} {
			t.Run(step.name, func(t *testing.T) {
				r := e.do(http.MethodPatch, "/v2/blocks/"+id, e.full, map[string]any{"paragraph": step.in})
				wantOK(t, r, 200)
				if got := colors(r.body, "paragraph"); got != step.want {
					t.Fatalf("colours = %v, want %v", got, step.want)
				}
			})
		}
	})
}

// TestBlocks_Placement appends at the end, at the start and after a given child.
func TestBlocks_Placement(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Order")
		texts := func() []string {
			var out []string
			for _, b := range e.kids(t, page) {
				out = append(out, b["paragraph"].(map[string]any)["rich_text"].([]any)[0].(map[string]any)["plain_text"].(string))
			}
			return out
		}
		ids := idsOf(e.appendKids(t, page, para("a"), para("b"), para("c")))
		after := func(id string) map[string]any {
			return map[string]any{"type": "after_block", "after_block": map[string]any{"id": id}}
		}
		for _, step := range []struct {
			name  string
			where map[string]any
			add   []any
			want  []string
		}{
			{"end by default", nil, []any{para("d")}, []string{"a", "b", "c", "d"}},
			{"after", map[string]any{"after": ids[0]}, []any{para("a1"), para("a2")}, []string{"a", "a1", "a2", "b", "c", "d"}},
			{"after the first again", map[string]any{"after": ids[0]}, []any{para("a0")}, []string{"a", "a0", "a1", "a2", "b", "c", "d"}},
			{"position start", map[string]any{"position": map[string]any{"type": "start"}}, []any{para("s1"), para("s2")},
				[]string{"s1", "s2", "a", "a0", "a1", "a2", "b", "c", "d"}},
			{"position end", map[string]any{"position": map[string]any{"type": "end"}}, []any{para("e")},
				[]string{"s1", "s2", "a", "a0", "a1", "a2", "b", "c", "d", "e"}},
			{"position after_block", map[string]any{"position": after(ids[2])}, []any{para("c1")},
				[]string{"s1", "s2", "a", "a0", "a1", "a2", "b", "c", "c1", "d", "e"}},
			{"after null is the end", map[string]any{"after": nil}, []any{para("f")},
				[]string{"s1", "s2", "a", "a0", "a1", "a2", "b", "c", "c1", "d", "e", "f"}},
			{"before", map[string]any{"before": ids[1]}, []any{para("b0"), para("b1")},
				[]string{"s1", "s2", "a", "a0", "a1", "a2", "b0", "b1", "b", "c", "c1", "d", "e", "f"}},
			{"before the first", map[string]any{"before": ids[0], "after": nil}, []any{para("z")},
				[]string{"s1", "s2", "z", "a", "a0", "a1", "a2", "b0", "b1", "b", "c", "c1", "d", "e", "f"}},
			{"before null is the end", map[string]any{"before": nil}, []any{para("g")},
				[]string{"s1", "s2", "z", "a", "a0", "a1", "a2", "b0", "b1", "b", "c", "c1", "d", "e", "f", "g"}},
		} {
			t.Run(step.name, func(t *testing.T) {
				body := map[string]any{"children": step.add}
				for k, v := range step.where {
					body[k] = v
				}
				r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, body)
				wantOK(t, r, 200)
				if n := len(objects(r.body["results"])); n != len(step.add) {
					t.Fatalf("answered %d blocks, want %d", n, len(step.add))
				}
				if diff := cmp.Diff(step.want, texts()); diff != "" {
					t.Fatalf("order (-want +got):\n%s", diff)
				}
			})
		}
		// A nested block's placement is among its own siblings.
		tg := e.appendKids(t, page, toggle("t", para("x"), para("z")))[0]["id"].(string)
		x := e.kidIDs(t, tg)[0]
		wantOK(t, e.do(http.MethodPatch, "/v2/blocks/"+tg+"/children", e.full, map[string]any{"children": []any{para("y")}, "after": x}), 200)
		var got []string
		for _, b := range e.kids(t, tg) {
			got = append(got, b["paragraph"].(map[string]any)["rich_text"].([]any)[0].(map[string]any)["plain_text"].(string))
		}
		if diff := cmp.Diff([]string{"x", "y", "z"}, got); diff != "" {
			t.Fatalf("toggle's children (-want +got):\n%s", diff)
		}
		// Bad placements write nothing.
		before := e.kidIDs(t, page)
		trashed := e.appendKids(t, page, para("gone"))[0]["id"].(string)
		wantOK(t, e.do(http.MethodDelete, "/v2/blocks/"+trashed, e.full, nil), 200)
		for _, tc := range []struct {
			name         string
			body         map[string]any
			path, reason string
		}{
			{"after a block elsewhere", map[string]any{"after": x}, "after", quire.ReasonInvalidValue},
			{"after an unknown block", map[string]any{"after": quire.NewID()}, "after", quire.ReasonInvalidValue},
			{"after a trashed block", map[string]any{"after": trashed}, "after", quire.ReasonInvalidValue},
			{"after not an id", map[string]any{"after": "x"}, "after", quire.ReasonInvalidValue},
			{"after_block elsewhere", map[string]any{"position": after(x)}, "position.after_block.id", quire.ReasonInvalidValue},
			{"after_block without id", map[string]any{"position": map[string]any{"type": "after_block"}}, "position.after_block.id", quire.ReasonRequired},
			{"unknown position", map[string]any{"position": map[string]any{"type": "middle"}}, "position.type", quire.ReasonInvalidValue},
			{"position not an object", map[string]any{"position": "start"}, "position", quire.ReasonInvalidType},
			{"after and position", map[string]any{"after": ids[0], "position": map[string]any{"type": "start"}}, "position", quire.ReasonInvalidValue},
			{"before a block elsewhere", map[string]any{"before": x}, "before", quire.ReasonInvalidValue},
			{"before a trashed block", map[string]any{"before": trashed}, "before", quire.ReasonInvalidValue},
			{"before not an id", map[string]any{"before": 7}, "before", quire.ReasonInvalidValue},
			{"after and before", map[string]any{"after": ids[0], "before": ids[2]}, "before", quire.ReasonInvalidValue},
			{"before and position", map[string]any{"before": ids[0], "position": map[string]any{"type": "end"}}, "position", quire.ReasonInvalidValue},
			{"unknown field", map[string]any{"beneath": ids[0]}, "beneath", quire.ReasonUnknownField},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tc.body["children"] = []any{para("nope")}
				wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, tc.body), 400, quire.CodeValidation, tc.path, tc.reason)
				if diff := cmp.Diff(before, e.kidIDs(t, page)); diff != "" {
					t.Fatalf("a refused append wrote (-before +after):\n%s", diff)
				}
			})
		}
		wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{}), 400, quire.CodeValidation, "children", quire.ReasonRequired)
	})
}

// deep returns a chain of toggles n levels below the top one.
func deep(n int) map[string]any {
	if n == 0 {
		return toggle("leaf")
	}
	return toggle(fmt.Sprintf("level %d", n), deep(n-1))
}

func TestBlocks_Limits(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Limits")
		many := func(n int, f func(i int) any) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = f(i)
			}
			return out
		}
		items := func(n int) []any { return many(n, func(int) any { return txt("x") }) }
		paras := func(n int) []any { return many(n, func(i int) any { return para(fmt.Sprint(i)) }) }
		// tree is top toggles each holding per paragraphs: top*(per+1) blocks.
		tree := func(top, per int) []any {
			return many(top, func(int) any { return toggle("t", paras(per)...) })
		}
		long := strings.Repeat("é", 2001)
		// What may be sent.
		for _, tc := range []struct {
			name     string
			children []any
		}{
			{"two levels", []any{deep(2)}},
			{"2000 characters", []any{para(strings.Repeat("é", 2000))}},
			{"100 items", []any{blk("paragraph", map[string]any{"rich_text": items(100)})}},
			{"100 children", paras(100)},
			{"1000 blocks", tree(100, 9)},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": tc.children})
				wantOK(t, r, 200)
			})
		}
		// What may not, with the exact path; a refused request writes nothing.
		table := func(cell string) any {
			return blk("table", map[string]any{"table_width": 2, "children": []any{
				blk("table_row", map[string]any{"cells": []any{[]any{txt("ok")}, []any{txt(cell)}}})}})
		}
		for _, tc := range []struct {
			name         string
			children     []any
			path, reason string
		}{
			{"three levels", []any{deep(3)}, "children[0].toggle.children[0].toggle.children[0].toggle.children", quire.ReasonInvalidValue},
			{"2001 characters", []any{para("ok"), para(long)}, "children[1].paragraph.rich_text[0].text.content", quire.ReasonTooLong},
			{"2001 characters nested", []any{toggle("t", para("ok", para(long)))},
				"children[0].toggle.children[0].paragraph.children[0].paragraph.rich_text[0].text.content", quire.ReasonTooLong},
			{"2001 characters in a cell", []any{table(long)}, "children[0].table.children[0].table_row.cells[1][0].text.content", quire.ReasonTooLong},
			{"2001 characters in a caption", []any{blk("code", map[string]any{"rich_text": []any{}, "caption": []any{txt(long)}})},
				"children[0].code.caption[0].text.content", quire.ReasonTooLong},
			{"101 items", []any{blk("paragraph", map[string]any{"rich_text": items(101)})}, "children[0].paragraph.rich_text", quire.ReasonTooMany},
			{"101 children", paras(101), "children", quire.ReasonTooMany},
			{"101 nested children", []any{toggle("t", paras(101)...)}, "children[0].toggle.children", quire.ReasonTooMany},
			{"1001 blocks", tree(91, 10), "children", quire.ReasonTooMany},
			{"1100 blocks", tree(100, 10), "children", quire.ReasonTooMany},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.kidIDs(t, page)
				r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, map[string]any{"children": tc.children})
				wantDetail(t, r, 400, quire.CodeValidation, tc.path, tc.reason)
				if diff := cmp.Diff(before, e.kidIDs(t, page)); diff != "" {
					t.Fatalf("a refused append wrote (-before +after):\n%s", diff)
				}
			})
		}
		// Limits hold on page creation too.
		before := len(e.pageIDs(t, "/v2/pages", e.full))
		wantDetail(t, e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": wsParent, "children": paras(101)}),
			400, quire.CodeValidation, "children", quire.ReasonTooMany)
		wantDetail(t, e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{"parent": wsParent, "children": []any{deep(3)}}),
			400, quire.CodeValidation, "children[0].toggle.children[0].toggle.children[0].toggle.children", quire.ReasonInvalidValue)
		if after := len(e.pageIDs(t, "/v2/pages", e.full)); after != before {
			t.Fatalf("refused creates wrote pages")
		}
	})
}

// TestBlocks_Structure: what may hold children, and what tables and columns need.
func TestBlocks_Structure(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Structure")
		kids := e.appendKids(t, page, blk("heading_1", map[string]any{"rich_text": []any{}}), blk("divider", map[string]any{}),
			blk("table", map[string]any{"table_width": 1, "children": []any{blk("table_row", map[string]any{"cells": []any{[]any{}}})}}))
		heading, divider, tbl := kids[0]["id"].(string), kids[1]["id"].(string), kids[2]["id"].(string)
		for _, tc := range []struct {
			name, id     string
			children     []any
			path, reason string
		}{
			{"row outside a table", page, []any{blk("table_row", map[string]any{"cells": []any{}})}, "children[0].type", quire.ReasonInvalidValue},
			{"column outside a list", page, []any{blk("column", map[string]any{"children": []any{para("x")}})}, "children[0].type", quire.ReasonInvalidValue},
			{"paragraph in a table", tbl, []any{para("x")}, "children[0].type", quire.ReasonInvalidValue},
			{"row of the wrong width", tbl, []any{blk("table_row", map[string]any{"cells": []any{[]any{}, []any{}}})}, "children[0].table_row.cells", quire.ReasonInvalidValue},
			{"children of a divider", divider, []any{para("x")}, "children", quire.ReasonInvalidValue},
			{"children of a plain heading", heading, []any{para("x")}, "children", quire.ReasonInvalidValue},
			{"table without rows", page, []any{blk("table", map[string]any{"table_width": 1})}, "children[0].table.children", quire.ReasonRequired},
			{"one column", page, []any{blk("column_list", map[string]any{"children": []any{blk("column", map[string]any{"children": []any{para("x")}})}})},
				"children[0].column_list.children", quire.ReasonInvalidValue},
			// Unknown and read-only types: TestCompat_UnsupportedBlockType.
			{"no type", page, []any{map[string]any{}}, "children[0].type", quire.ReasonRequired},
			{"type without content", page, []any{map[string]any{"type": "paragraph"}}, "children[0].paragraph", quire.ReasonRequired},
			{"rich_text missing", page, []any{blk("quote", map[string]any{})}, "children[0].quote.rich_text", quire.ReasonRequired},
			{"children not an array", page, nil, "children", quire.ReasonInvalidType},
			{"link to a non-id", page, []any{blk("link_to_page", map[string]any{"page_id": "x"})}, "children[0].link_to_page.page_id", quire.ReasonInvalidValue},
			{"unknown language", page, []any{blk("code", map[string]any{"rich_text": []any{}, "language": "klingon"})}, "children[0].code.language", quire.ReasonInvalidValue},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.kidIDs(t, tc.id)
				var children any = tc.children
				if tc.children == nil {
					children = "x"
				}
				r := e.do(http.MethodPatch, "/v2/blocks/"+tc.id+"/children", e.full, map[string]any{"children": children})
				wantDetail(t, r, 400, quire.CodeValidation, tc.path, tc.reason)
				if diff := cmp.Diff(before, e.kidIDs(t, tc.id)); diff != "" {
					t.Fatalf("a refused append wrote (-before +after):\n%s", diff)
				}
			})
		}
		// A row of the right width joins the table.
		wantOK(t, e.do(http.MethodPatch, "/v2/blocks/"+tbl+"/children", e.full, map[string]any{"children": []any{
			blk("table_row", map[string]any{"cells": []any{[]any{txt("r2")}}})}}), 200)
		if n := len(e.kids(t, tbl)); n != 2 {
			t.Fatalf("table rows = %d, want 2", n)
		}
		// Folders and mind maps hold no content blocks.
		for _, pt := range []string{"folder", "mind_map"} {
			id := e.mkPage(t, e.full, pageParent(page), pt, map[string]any{"page_type": pt})
			wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+id+"/children", e.full, map[string]any{"children": []any{para("x")}}),
				400, quire.CodeValidation, "children", quire.ReasonInvalidValue)
			if n := len(e.kids(t, id)); n != 0 {
				t.Fatalf("%s holds %d blocks", pt, n)
			}
		}
		// A page in a folder is still a page.
		folder := e.mkPage(t, e.full, wsParent, "Folder", map[string]any{"page_type": "folder"})
		inner := e.mkPage(t, e.full, pageParent(folder), "Inner")
		e.appendKids(t, inner, para("fine"))
		if got := e.kids(t, folder); len(got) != 1 || got[0]["type"] != "child_page" {
			t.Fatalf("folder's children: %v", got)
		}
	})
}

// TestBlocks_HasChildren: has_children is true exactly while a block has children not in trash.
func TestBlocks_HasChildren(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Kids")
		id := e.appendKids(t, page, para("parent"))[0]["id"].(string)
		has := func() any {
			r := e.do(http.MethodGet, "/v2/blocks/"+id, e.full, nil)
			wantOK(t, r, 200)
			listed := e.kids(t, page)[0]["has_children"]
			if listed != r.body["has_children"] {
				t.Fatalf("GET says has_children %v, the list %v", r.body["has_children"], listed)
			}
			return r.body["has_children"]
		}
		if has() != false {
			t.Fatal("a new block has children")
		}
		kids := idsOf(e.appendKids(t, id, para("a"), para("b")))
		if has() != true {
			t.Fatal("has_children false after an append")
		}
		wantOK(t, e.do(http.MethodDelete, "/v2/blocks/"+kids[0], e.full, nil), 200)
		if has() != true {
			t.Fatal("has_children false with one child left")
		}
		wantOK(t, e.do(http.MethodPatch, "/v2/blocks/"+kids[1], e.full, map[string]any{"in_trash": true}), 200)
		if has() != false {
			t.Fatal("has_children true with every child in trash")
		}
		if n := len(e.kids(t, id)); n != 0 {
			t.Fatalf("children in trash are listed: %d", n)
		}
		wantOK(t, e.do(http.MethodPatch, "/v2/blocks/"+kids[1], e.full, map[string]any{"in_trash": false}), 200)
		if has() != true {
			t.Fatal("has_children false after a restore")
		}
		// A page's child_page block has children when the page has content.
		sub := e.mkPage(t, e.full, pageParent(page), "Sub")
		childPage := func() any { return e.kids(t, page)[1]["has_children"] }
		if childPage() != false {
			t.Fatal("empty child page has children")
		}
		b := e.appendKids(t, sub, para("x"))[0]["id"].(string)
		if childPage() != true {
			t.Fatal("child page with content has no children")
		}
		wantOK(t, e.do(http.MethodDelete, "/v2/blocks/"+b, e.full, nil), 200)
		if childPage() != false {
			t.Fatal("child page whose content is in trash has children")
		}
	})
}

// TestBlocks_Pagination walks 250 children 100 at a time while blocks are inserted before and
// after the walk's position: every original block comes exactly once, in order.
func TestBlocks_Pagination(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Long")
		var want []string
		for start := 0; start < 250; start += 100 {
			var batch []any
			for i := start; i < min(start+100, 250); i++ {
				batch = append(batch, para(fmt.Sprint(i)))
			}
			want = append(want, idsOf(e.appendKids(t, page, batch...))...)
		}
		seen := map[string]int{}
		var order []string
		var inserted []string
		cursor := ""
		for walk := 0; ; walk++ {
			path := "/v2/blocks/" + page + "/children?page_size=100"
			if cursor != "" {
				path += "&start_cursor=" + cursor
			}
			r := e.do(http.MethodGet, path, e.full, nil)
			wantOK(t, r, 200)
			for _, id := range idsOf(objects(r.body["results"])) {
				seen[id]++
				order = append(order, id)
			}
			if walk == 0 {
				// Insert behind the walk (after block 10), right at its edge (after block 99)
				// and ahead of it (after block 150, and at the start).
				for _, at := range []int{10, 99, 150} {
					r := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full,
						map[string]any{"children": []any{para("new"), para("new")}, "after": want[at]})
					wantOK(t, r, 200)
					inserted = append(inserted, idsOf(objects(r.body["results"]))...)
				}
				e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full,
					map[string]any{"children": []any{para("first")}, "position": map[string]any{"type": "start"}})
			}
			next, _ := r.body["next_cursor"].(string)
			if next == "" {
				break
			}
			cursor = next
		}
		var originals []string
		for _, id := range order {
			if seen[id] != 1 {
				t.Fatalf("block %s seen %d times", id, seen[id])
			}
			if contains(want, id) {
				originals = append(originals, id)
			}
		}
		if diff := cmp.Diff(want, originals); diff != "" {
			t.Fatalf("the walk's original blocks (-want +got):\n%s", diff)
		}
		// What was inserted ahead of the walk is in it, in its place.
		if !contains(order, inserted[4]) || !contains(order, inserted[2]) {
			t.Fatalf("blocks inserted ahead of the walk are missing")
		}
		// A full walk now sees everything once.
		all := e.kidIDs(t, page)
		if len(all) != 250+7 {
			t.Fatalf("children = %d, want 257", len(all))
		}
		// Page sizes and cursors.
		r := e.do(http.MethodGet, "/v2/blocks/"+page+"/children", e.full, nil)
		if n := len(objects(r.body["results"])); n != 20 || r.body["has_more"] != true {
			t.Fatalf("default page: %d results, has_more %v", n, r.body["has_more"])
		}
		other := e.appendKids(t, page, para("other"))[0]["id"].(string)
		e.appendKids(t, other, para("a"), para("b"))
		foreign := e.do(http.MethodGet, "/v2/blocks/"+other+"/children?page_size=1", e.full, nil).body["next_cursor"].(string)
		for _, tc := range []struct{ query, path, reason string }{
			{"start_cursor=garbage", "start_cursor", quire.ReasonInvalidValue},
			{"start_cursor=" + foreign, "start_cursor", quire.ReasonInvalidValue},
			{"page_size=0", "page_size", quire.ReasonOutOfRange},
			{"page_size=101", "page_size", quire.ReasonOutOfRange},
			{"colour=red", "colour", quire.ReasonUnknownField},
		} {
			t.Run(tc.query, func(t *testing.T) {
				wantDetail(t, e.do(http.MethodGet, "/v2/blocks/"+page+"/children?"+tc.query, e.full, nil), 400, quire.CodeValidation, tc.path, tc.reason)
			})
		}
		e.do(http.MethodGet, "/v2/blocks/"+quire.NewID()+"/children", e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		wantDetail(t, e.do(http.MethodGet, "/v2/blocks/x/children", e.full, nil), 400, quire.CodeValidation, "block_id", quire.ReasonInvalidValue)
	})
}

func TestPatchBlock(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Edits")
		ids := idsOf(e.appendKids(t, page, para("one"), blk("to_do", map[string]any{"rich_text": []any{txt("task")}}), para("three")))
		id := ids[0]
		r := e.do(http.MethodPatch, "/v2/blocks/"+id, e.full, map[string]any{"paragraph": map[string]any{"rich_text": []any{txt("uno")}}})
		wantOK(t, r, 200)
		want := e.blockWant(pageParent(page), false, false, "paragraph", jsonValue(t, `{"rich_text":[%s],"text_color":"default","background_color":"default"}`, rtJSON("uno")))
		if diff := cmp.Diff(want, volatile(t, r.body)); diff != "" {
			t.Fatalf("PATCH answer (-want +got):\n%s", diff)
		}
		if r.header.Get("ETag") != `W/"2"` {
			t.Fatalf("ETag = %q", r.header.Get("ETag"))
		}
		g := e.do(http.MethodGet, "/v2/blocks/"+id, e.full, nil)
		if diff := cmp.Diff(r.body, g.body); diff != "" {
			t.Fatalf("GET after PATCH (-patch +get):\n%s", diff)
		}
		// Fields left out keep their values; the type may be repeated.
		wantOK(t, e.do(http.MethodPatch, "/v2/blocks/"+ids[1], e.full, map[string]any{"type": "to_do", "to_do": map[string]any{"checked": true}}), 200)
		todo := e.do(http.MethodGet, "/v2/blocks/"+ids[1], e.full, nil).body["to_do"]
		if diff := cmp.Diff(jsonValue(t, `{"rich_text":[%s],"checked":true,"text_color":"default","background_color":"default"}`, rtJSON("task")), todo); diff != "" {
			t.Fatalf("to_do (-want +got):\n%s", diff)
		}
		// If-Match.
		before := e.do(http.MethodGet, "/v2/blocks/"+id, e.full, nil)
		e.do(http.MethodPatch, "/v2/blocks/"+id, e.full, map[string]any{"paragraph": map[string]any{"rich_text": []any{}}}, "If-Match", `W/"1"`).
			wantError(t, 409, quire.CodeConflict, "")
		e.do(http.MethodPatch, "/v2/blocks/"+id, e.full, map[string]any{"in_trash": true}, "If-Match", `W/"1"`).wantError(t, 409, quire.CodeConflict, "")
		if diff := cmp.Diff(before.body, e.do(http.MethodGet, "/v2/blocks/"+id, e.full, nil).body); diff != "" {
			t.Fatalf("a refused PATCH changed the block (-before +after):\n%s", diff)
		}
		r = e.do(http.MethodPatch, "/v2/blocks/"+id, e.full, map[string]any{"paragraph": map[string]any{"text_color": "red"}}, "If-Match", before.header.Get("ETag"))
		wantOK(t, r, 200)
		if r.header.Get("ETag") != `W/"3"` {
			t.Fatalf("ETag = %q", r.header.Get("ETag"))
		}
		// Refusals, none of which changes anything.
		now := e.do(http.MethodGet, "/v2/blocks/"+id, e.full, nil)
		for _, tc := range []struct {
			name         string
			body         any
			path, reason string
		}{
			{"another type", map[string]any{"type": "quote", "quote": map[string]any{"rich_text": []any{}}}, "type", quire.ReasonImmutable},
			{"another type's content", map[string]any{"heading_1": map[string]any{"rich_text": []any{}}}, "type", quire.ReasonImmutable},
			{"unknown field", map[string]any{"paragraph": map[string]any{"colour": "red"}}, "paragraph.colour", quire.ReasonUnknownField},
			{"unknown top field", map[string]any{"archived_by": 1}, "archived_by", quire.ReasonUnknownField},
			{"children are appended, not patched", map[string]any{"paragraph": map[string]any{"children": []any{}}}, "paragraph.children", quire.ReasonUnknownField},
			{"too long", map[string]any{"paragraph": map[string]any{"rich_text": []any{txt(strings.Repeat("x", 2001))}}}, "paragraph.rich_text[0].text.content", quire.ReasonTooLong},
			{"in_trash not a boolean", map[string]any{"in_trash": 1}, "in_trash", quire.ReasonInvalidType},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPatch, "/v2/blocks/"+id, e.full, tc.body)
				wantDetail(t, r, 400, quire.CodeValidation, tc.path, tc.reason)
				// One problem, one detail ("another type" listed "type" twice; found by fuzzing).
				if n := len(r.body["details"].([]any)); n != 1 {
					t.Fatalf("%d details, want 1: %s", n, r.raw)
				}
				if diff := cmp.Diff(now.body, e.do(http.MethodGet, "/v2/blocks/"+id, e.full, nil).body); diff != "" {
					t.Fatalf("a refused PATCH changed the block (-before +after):\n%s", diff)
				}
			})
		}
		e.do(http.MethodPatch, "/v2/blocks/"+quire.NewID(), e.full, map[string]any{}).wantError(t, 404, quire.CodeNotFound, "")
		// A table's width is fixed; a row keeps its width.
		tbl := e.appendKids(t, page, blk("table", map[string]any{"table_width": 2, "children": []any{
			blk("table_row", map[string]any{"cells": []any{[]any{}, []any{}}})}}))[0]["id"].(string)
		wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+tbl, e.full, map[string]any{"table": map[string]any{"table_width": 3}}),
			400, quire.CodeValidation, "table.table_width", quire.ReasonImmutable)
		row := e.kidIDs(t, tbl)[0]
		wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+row, e.full, map[string]any{"table_row": map[string]any{"cells": []any{[]any{}}}}),
			400, quire.CodeValidation, "table_row.cells", quire.ReasonInvalidValue)
		wantOK(t, e.do(http.MethodPatch, "/v2/blocks/"+row, e.full, map[string]any{"table_row": map[string]any{"cells": []any{[]any{txt("a")}, []any{}}}}), 200)
		// A child_page block changes through its page.
		sub := e.mkPage(t, e.full, pageParent(page), "Sub")
		wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+sub, e.full, map[string]any{"child_page": map[string]any{"title": "x"}}),
			400, quire.CodeValidation, "child_page", quire.ReasonImmutable)
	})
}

func TestTrashBlock(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Trash")
		ids := idsOf(e.appendKids(t, page, para("a"), toggle("b", para("b1")), para("c")))
		tg := ids[1]
		b1 := e.kidIDs(t, tg)[0]
		r := e.do(http.MethodDelete, "/v2/blocks/"+tg, e.full, nil)
		wantOK(t, r, 200)
		if r.body["in_trash"] != true {
			t.Fatalf("DELETE answer: %s", r.raw)
		}
		if diff := cmp.Diff([]string{ids[0], ids[2]}, e.kidIDs(t, page)); diff != "" {
			t.Fatalf("children after DELETE (-want +got):\n%s", diff)
		}
		g := e.do(http.MethodGet, "/v2/blocks/"+tg, e.full, nil)
		if g.status != 200 || g.body["in_trash"] != true {
			t.Fatalf("trashed block: %d %s", g.status, g.raw)
		}
		// Its children stay with it, readable.
		if diff := cmp.Diff([]string{b1}, e.kidIDs(t, tg)); diff != "" {
			t.Fatalf("children of a trashed block (-want +got):\n%s", diff)
		}
		// Writes to it are refused as archived, and write nothing.
		wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+tg, e.full, map[string]any{"toggle": map[string]any{"rich_text": []any{}}}),
			400, quire.CodeValidation, "in_trash", quire.ReasonArchived)
		r = e.do(http.MethodPatch, "/v2/blocks/"+tg+"/children", e.full, map[string]any{"children": []any{para("x")}})
		if r.status != 400 || !hasReason(r, quire.ReasonArchived) {
			t.Fatalf("append to a trashed block: %d %s", r.status, r.raw)
		}
		if diff := cmp.Diff([]string{b1}, e.kidIDs(t, tg)); diff != "" {
			t.Fatalf("children of a trashed block (-want +got):\n%s", diff)
		}
		// Restore: back in its place, with its children.
		r = e.do(http.MethodPatch, "/v2/blocks/"+tg, e.full, map[string]any{"in_trash": false})
		wantOK(t, r, 200)
		if diff := cmp.Diff(ids, e.kidIDs(t, page)); diff != "" {
			t.Fatalf("children after restore (-want +got):\n%s", diff)
		}
		// Restoring with a change at once is allowed.
		wantOK(t, e.do(http.MethodDelete, "/v2/blocks/"+ids[0], e.full, nil), 200)
		r = e.do(http.MethodPatch, "/v2/blocks/"+ids[0], e.full, map[string]any{"in_trash": false, "paragraph": map[string]any{"rich_text": []any{txt("A")}}})
		wantOK(t, r, 200)
		if r.body["in_trash"] != false {
			t.Fatalf("restore: %s", r.raw)
		}
		// Under a trashed page every write is archived; reads still work.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+page, e.full, nil), 200)
		for _, tc := range []struct {
			name, method, path string
			body               any
		}{
			{"append to the page", http.MethodPatch, "/v2/blocks/" + page + "/children", map[string]any{"children": []any{para("x")}}},
			{"append to a block", http.MethodPatch, "/v2/blocks/" + tg + "/children", map[string]any{"children": []any{para("x")}}},
			{"edit a block", http.MethodPatch, "/v2/blocks/" + ids[2], map[string]any{"paragraph": map[string]any{"rich_text": []any{}}}},
			{"restore a block", http.MethodPatch, "/v2/blocks/" + ids[0], map[string]any{"in_trash": false}},
			{"replace the markdown", http.MethodPut, "/v2/pages/" + page + "/content/markdown", map[string]any{"markdown": "x"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(tc.method, tc.path, e.full, tc.body)
				if r.status != 400 || !hasReason(r, quire.ReasonArchived) {
					t.Fatalf("%d %s", r.status, r.raw)
				}
				checkErrorShape(t, r)
			})
		}
		if n := len(e.kids(t, page)); n != 3 {
			t.Fatalf("trashed page's children = %d, want 3", n)
		}
		e.do(http.MethodDelete, "/v2/blocks/"+quire.NewID(), e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		// A child_page block's DELETE trashes the page, and its restore restores it.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+page, e.full, map[string]any{"in_trash": false}), 200)
		sub := e.mkPage(t, e.full, pageParent(page), "Sub")
		r = e.do(http.MethodDelete, "/v2/blocks/"+sub, e.full, nil)
		wantOK(t, r, 200)
		if r.body["in_trash"] != true || e.getPage(t, sub).body["in_trash"] != true {
			t.Fatalf("DELETE of a child_page block did not trash the page: %s", r.raw)
		}
		wantOK(t, e.do(http.MethodPatch, "/v2/blocks/"+sub, e.full, map[string]any{"in_trash": false}), 200)
		if e.getPage(t, sub).body["in_trash"] != false || !contains(e.kidIDs(t, page), sub) {
			t.Fatal("restoring a child_page block did not restore the page")
		}
	})
}

func hasReason(r *response, reason string) bool {
	ds, _ := r.body["details"].([]any)
	for _, d := range ds {
		if d.(map[string]any)["reason"] == reason {
			return true
		}
	}
	return false
}

// TestContent_Idempotency: POST /v2/pages and PATCH …/children replay under an Idempotency-Key
// with one effect.
func TestContent_Idempotency(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		body := map[string]any{"parent": wsParent, "properties": titleOf("Once"), "children": []any{para("x")}}
		first := e.do(http.MethodPost, "/v2/pages", e.full, body, "Idempotency-Key", "page-1")
		wantOK(t, first, 200)
		again := e.do(http.MethodPost, "/v2/pages", e.full, body, "Idempotency-Key", "page-1")
		wantOK(t, again, 200)
		if string(again.raw) != string(first.raw) || again.header.Get("Idempotent-Replayed") != "true" || again.header.Get("ETag") != first.header.Get("ETag") {
			t.Fatalf("replay differs: %s (replayed %q, ETag %q)", again.raw, again.header.Get("Idempotent-Replayed"), again.header.Get("ETag"))
		}
		if n := len(e.pageIDs(t, "/v2/workspace/pages", e.full)); n != 1 {
			t.Fatalf("top-level pages = %d, want 1", n)
		}
		body["properties"] = titleOf("Twice")
		e.do(http.MethodPost, "/v2/pages", e.full, body, "Idempotency-Key", "page-1").wantError(t, 409, quire.CodeIdempotencyConflict, "")

		page := first.body["id"].(string)
		add := map[string]any{"children": []any{para("a"), para("b")}}
		a1 := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, add, "Idempotency-Key", "append-1")
		wantOK(t, a1, 200)
		a2 := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, add, "Idempotency-Key", "append-1")
		wantOK(t, a2, 200)
		if string(a1.raw) != string(a2.raw) || a2.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replayed append differs: %s", a2.raw)
		}
		if n := len(e.kids(t, page)); n != 3 {
			t.Fatalf("children = %d, want 3", n)
		}
		// The same key on another path is another request.
		e.do(http.MethodPatch, "/v2/blocks/"+a1.body["results"].([]any)[0].(map[string]any)["id"].(string)+"/children", e.full, add,
			"Idempotency-Key", "append-1").wantError(t, 409, quire.CodeIdempotencyConflict, "")
		// A refused request is replayed as refused, and writes nothing.
		bad := map[string]any{"children": []any{para(strings.Repeat("x", 2001))}}
		b1 := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, bad, "Idempotency-Key", "append-2")
		b2 := e.do(http.MethodPatch, "/v2/blocks/"+page+"/children", e.full, bad, "Idempotency-Key", "append-2")
		wantDetail(t, b1, 400, quire.CodeValidation, "children[0].paragraph.rich_text[0].text.content", quire.ReasonTooLong)
		if b2.status != 400 || string(b2.raw) != string(b1.raw) || b2.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replayed refusal: %d %s", b2.status, b2.raw)
		}
		if n := len(e.kids(t, page)); n != 3 {
			t.Fatalf("children = %d, want 3", n)
		}
		// PATCH of a page and a block replay too.
		p1 := e.do(http.MethodPatch, "/v2/pages/"+page, e.full, map[string]any{"properties": titleOf("Renamed")}, "Idempotency-Key", "rename")
		p2 := e.do(http.MethodPatch, "/v2/pages/"+page, e.full, map[string]any{"properties": titleOf("Renamed")}, "Idempotency-Key", "rename")
		if p1.status != 200 || string(p1.raw) != string(p2.raw) || p2.header.Get("ETag") != p1.header.Get("ETag") {
			t.Fatalf("page PATCH replay: %d %s / %s", p1.status, p1.raw, p2.raw)
		}
		if got := e.getPage(t, page).header.Get("ETag"); got != p1.header.Get("ETag") {
			t.Fatalf("a replayed PATCH changed the version: %s, first answered %s", got, p1.header.Get("ETag"))
		}
	})
}

// TestBlocks_ConcurrentAppends: appends to one parent from many clients at once each land
// whole, in their own order, never interleaved with another's blocks.
func TestBlocks_ConcurrentAppends(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Busy")
		const clients, each = 12, 4
		for _, where := range []map[string]any{{}, {"position": map[string]any{"type": "start"}}} {
			statuses := make([]int, clients)
			var wg sync.WaitGroup
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var kids []any
					for i := range each {
						kids = append(kids, para(fmt.Sprintf("%d.%d", c, i)))
					}
					body := map[string]any{"children": kids}
					for k, v := range where {
						body[k] = v
					}
					statuses[c], _ = e.rawDo(http.MethodPatch, "/v2/blocks/"+page+"/children", body)
				}()
			}
			wg.Wait()
			for c, s := range statuses {
				if s != 200 {
					t.Fatalf("client %d: status %d", c, s)
				}
			}
			var texts []string
			for _, b := range e.kids(t, page) {
				texts = append(texts, b["paragraph"].(map[string]any)["rich_text"].([]any)[0].(map[string]any)["plain_text"].(string))
			}
			// Runs of each client's blocks, in its order.
			for i := 0; i < len(texts); i += each {
				c, _, _ := strings.Cut(texts[i], ".")
				for k := range each {
					if want := fmt.Sprintf("%s.%d", c, k); i+k >= len(texts) || texts[i+k] != want {
						t.Fatalf("appends interleaved (%v): %v", where, texts)
					}
				}
			}
			if len(texts) != clients*each {
				t.Fatalf("children = %d, want %d", len(texts), clients*each)
			}
			// Clear for the next round.
			wantOK(t, e.do(http.MethodPut, "/v2/pages/"+page+"/content/markdown", e.full, map[string]any{"markdown": ""}), 200)
		}
	})
}
