package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
)

// TestPageJSON: a page, and a list of pages, written by appendJSON are byte for byte what huma's
// JSON format (encoding/json, HTML left unescaped) writes for the same value: for every kind of
// parent, with and without icon, cover and properties, and with strings that need escaping.
func TestPageJSON(t *testing.T) {
	id, user := quire.NewID(), quire.NewID()
	icon := `{"type":"emoji","emoji":"🌿"}`
	cover := `{"type":"file_upload","file_upload":{"id":"` + id + `"}}`
	pages := []pageObject{
		{Object: "page", ID: id, PageType: "page", CreatedTime: "2026-01-02T03:04:05.000Z", LastEditedTime: "2026-01-02T03:04:06.000Z",
			CreatedBy: ref(user), LastEditedBy: ref(id), Parent: newParent(quire.ParentPage, id), URL: "https://q.test/" + id,
			Properties: propertiesJSON(`{"title":{"id":"title","type":"title","title":[{"type":"text","text":{"content":"a <b> & \"c\" \u2028 é"}}]}}`)},
		{Object: "page", ID: id, PageType: "folder", Parent: newParent(quire.ParentWorkspace, ""), InTrash: true,
			Icon: fileObjectJSON(icon), Cover: fileObjectJSON(cover), URL: "https://q.test/p?a=1&b=<2>"},
		{Object: "page", ID: id, PageType: "page", Parent: newParent(quire.ParentDatabase, id),
			Properties: propertiesJSON(`{"Num":{"id":"abc","type":"number","number":12.5},"Done":{"type":"checkbox","checkbox":true}}`)},
		{Object: "page", ID: "odd \"id\" <&>\n\t\\", PageType: "mind_map", Parent: newParent(quire.ParentBlock, id), URL: "é\u2028"},
	}
	encode := func(v any) []byte {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	for _, p := range pages {
		got, ok := p.appendJSON(nil)
		if want := encode(p); !ok || !bytes.Equal(got, want) {
			t.Errorf("appendJSON = %v\n%s\nencoding/json:\n%s", ok, got, want)
		}
	}
	next := "cursor/with+odd=chars<&>"
	for _, l := range []list[pageObject]{newList(pages, ""), newList(pages, next)} {
		got, ok := l.appendJSON(nil)
		if want := encode(l); !ok || !bytes.Equal(got, want) {
			t.Errorf("list appendJSON = %v\n%s\nencoding/json:\n%s", ok, got, want)
		}
	}
}
