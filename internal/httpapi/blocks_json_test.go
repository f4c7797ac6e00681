package httpapi

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/quire"
)

// TestBlockJSON: a block and a list of blocks written by appendJSON decode to what encoding/json
// writes for the same fields (blockDoc with the type's field), for every kind of parent and for
// strings that need escaping; the written bytes are valid JSON.
func TestBlockJSON(t *testing.T) {
	id := quire.NewID()
	at := int64(1767323045678) // 2026-01-02T03:04:05.678Z
	blocks := []blockObject{
		{&quire.Block{ID: id, ParentID: id, CreatedMs: at, EditedMs: at + 1, CreatedBy: id, EditedBy: id, HasChildren: true, Type: "paragraph",
			Content: json.RawMessage(`{"rich_text":[{"type":"text","text":{"content":"a <b> & \"c\" \u2028 é"}}],"color":"default"}`)}, quire.ParentPage},
		{&quire.Block{ID: id, ParentID: id, InTrash: true, Type: "divider"}, quire.ParentBlock},
		{&quire.Block{ID: id, ParentID: id, Type: "child_database", Content: json.RawMessage(`{"title":"x"}`)}, quire.ParentDatabase},
		{&quire.Block{ID: "odd \"id\" <&>\n", CreatedMs: -1, EditedMs: 253402300800000, Type: "to_do", Content: json.RawMessage(`{}`)}, quire.ParentWorkspace},
	}
	for _, o := range blocks {
		got, ok := o.appendJSON(nil)
		if !ok || !json.Valid(got) {
			t.Fatalf("appendJSON(%+v) = %s, %v", o.b, got, ok)
		}
		b := o.b
		want := map[string]any{}
		head, _ := json.Marshal(blockDoc{Object: "block", ID: b.ID, Parent: newParent(o.parentType, b.ParentID),
			CreatedTime: time.UnixMilli(b.CreatedMs).UTC().Format(quire.TimeLayout), LastEditedTime: time.UnixMilli(b.EditedMs).UTC().Format(quire.TimeLayout),
			CreatedBy: ref(b.CreatedBy), LastEditedBy: ref(b.EditedBy), HasChildren: b.HasChildren, InTrash: b.InTrash, Type: b.Type})
		mustUnmarshal(t, head, &want)
		want[b.Type] = json.RawMessage(rawOr(b.Content, "{}"))
		wantBytes, _ := json.Marshal(want)
		if diff := cmp.Diff(decode(t, wantBytes), decode(t, got)); diff != "" {
			t.Errorf("block %s (-encoding/json +appendJSON):\n%s", b.Type, diff)
		}
	}
	next := "cursor/with+odd=chars"
	for _, l := range []list[blockObject]{newList(blocks, ""), newList(blocks, next)} {
		got, ok := l.appendJSON(nil)
		if !ok {
			t.Fatal("a list of blocks does not write itself")
		}
		want, _ := json.Marshal(l)
		if diff := cmp.Diff(decode(t, want), decode(t, got)); diff != "" {
			t.Errorf("list (-encoding/json +appendJSON):\n%s", diff)
		}
	}
	// An empty list, or one of items that do not write themselves, goes through encoding/json.
	if _, ok := newList[blockObject](nil, "").appendJSON(nil); ok {
		t.Error("an empty list wrote itself")
	}
	if _, ok := newList([]userRef{ref(id)}, "").appendJSON(nil); ok {
		t.Error("a list of users wrote itself")
	}
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	mustUnmarshal(t, b, &v)
	return v
}

// TestPlainJSON: the eight-bytes-at-once test agrees with the byte rule for every byte value at
// every position of a string, beside every other, and on random strings near the edges.
func TestPlainJSON(t *testing.T) {
	plain := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	check := func(s string) {
		if got, want := plainJSON(s), plain(s); got != want {
			t.Fatalf("plainJSON(%q) = %v, want %v", s, got, want)
		}
	}
	base := []byte("0123456789abcdefg") // 17: two words and a tail
	for i := range base {
		for c := range 256 {
			b := append([]byte(nil), base...)
			b[i] = byte(c)
			check(string(b))
			for d := range 256 { // a pair of neighbours: borrows run from one byte to the next
				if j := i + 1; j < len(b) {
					b[j] = byte(d)
					check(string(b))
				}
			}
		}
	}
	edges := []byte{0, 0x1f, 0x20, 0x21, '"' - 1, '"', '"' + 1, '\\' - 1, '\\', '\\' + 1, 0x7e, 0x7f, 0x80, 0x81, 0xa2, 0xdc, 0xff, 'a'}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = edges[rng.IntN(len(edges))]
			if rng.IntN(3) > 0 {
				b[i] = 'a' + byte(rng.IntN(26))
			}
		}
		check(string(b))
	}
}
