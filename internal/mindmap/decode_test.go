package mindmap

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
)

const (
	idA = "0f5c7a4e-8d1b-4e2a-9c3f-6b7d8e9f0a1b"
	idB = "5d2f8c1a-3b4e-4f6a-8b9c-0d1e2f3a4b5c"
)

func body(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test body %s: %v", s, err)
	}
	return m
}

// details are an error's details, nil for no error; anything but a validation error fails.
func details(t *testing.T, err error) []quire.Detail {
	t.Helper()
	if err == nil {
		return nil
	}
	qe, ok := quire.AsError(err)
	if !ok || qe.Code != quire.CodeValidation {
		t.Fatalf("err = %v, want a validation_error", err)
	}
	return qe.Details
}

func TestDecodeNew(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       New
		problems   []quire.Detail
	}{
		{"minimal", `{"parent":{},"title":"Plan"}`, New{Title: blocks.Plain("Plan"), Settings: DefaultSettings()}, nil},
		{"tree and settings", `{"title":[],"root":{"id":"` + idA + `","text":"R","color":"red","collapsed":true,"children":[{"text":"A"}]},"settings":{"theme":"dark"}}`,
			New{Title: blocks.RichText{}, Settings: Settings{Layout: "right", Theme: "dark"},
				Root: &Node{ID: idA, Text: "R", Color: "red", Collapsed: true, Children: []*Node{{Text: "A", Color: "default"}}}}, nil},
		{"every problem at once", `{"titel":"x","root":{"text":5,"color":"teal","children":[{"id":"x"},{"kids":[]}]},"settings":{"layout":"radial","zoom":1}}`,
			New{}, []quire.Detail{
				{Path: "root.children[0].id", Reason: "invalid_value"}, {Path: "root.children[1].kids", Reason: "unknown_field"},
				{Path: "root.color", Reason: "invalid_value"}, {Path: "root.text", Reason: "invalid_type"},
				{Path: "settings.layout", Reason: "invalid_value"}, {Path: "settings.zoom", Reason: "unknown_field"},
				{Path: "titel", Reason: "unknown_field"}, {Path: "title", Reason: "required"}}},
		{"empty key", `{"title":"x","":1}`, New{}, []quire.Detail{{Path: `""`, Reason: "unknown_field"}}},
		{"title too long", `{"title":"` + strings.Repeat("é", 2001) + `"}`, New{}, []quire.Detail{quire.Beyond("title", "too_long", 2000, 2001)}},
		{"title rich text problem", `{"title":[{"text":{"content":1}}]}`, New{}, []quire.Detail{{Path: "title[0].text.content", Reason: "invalid_type"}}},
		{"root not an object", `{"title":"x","root":[]}`, New{}, []quire.Detail{{Path: "root", Reason: "invalid_type"}}},
		{"children not an array", `{"title":"x","root":{"children":{}}}`, New{}, []quire.Detail{{Path: "root.children", Reason: "invalid_type"}}},
		{"too many children", `{"title":"x","root":{"children":[` + strings.Repeat(`{},`, 100) + `{}]}}`, New{},
			[]quire.Detail{quire.Beyond("root.children", "too_many", 100, 101)}},
		{"repeated id", `{"title":"x","root":{"id":"` + idA + `","children":[{"id":"` + idB + `"},{"id":"` + idA + `"}]}}`, New{},
			[]quire.Detail{{Path: "root.children[1].id", Reason: "invalid_value"}}},
		{"collapsed not a boolean", `{"title":"x","root":{"collapsed":"yes"}}`, New{}, []quire.Detail{{Path: "root.collapsed", Reason: "invalid_type"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeNew(body(t, tc.body))
			if diff := cmp.Diff(tc.problems, details(t, err)); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeNew_Limits(t *testing.T) {
	deep := func(n int) string { return strings.Repeat(`{"children":[`, n-1) + `{}` + strings.Repeat(`]}`, n-1) }
	if _, err := DecodeNew(body(t, `{"title":"x","root":`+deep(MaxDepth)+`}`)); err != nil {
		t.Fatalf("a map %d levels deep: %v", MaxDepth, err)
	}
	_, err := DecodeNew(body(t, `{"title":"x","root":`+deep(MaxDepth+1)+`}`))
	want := []quire.Detail{quire.Beyond("root"+strings.Repeat(".children[0]", MaxDepth), "out_of_range", MaxDepth, MaxDepth+1)}
	if diff := cmp.Diff(want, details(t, err)); diff != "" {
		t.Fatalf("a map %d levels deep (-want +got):\n%s", MaxDepth+1, diff)
	}
	// 1 + 100 + 100×99 = 10,001 nodes.
	wide := `{"children":[` + strings.Repeat(`{"children":[`+strings.Repeat(`{},`, 98)+`{}]},`, 99) + `{"children":[` + strings.Repeat(`{},`, 98) + `{}]}]}`
	_, err = DecodeNew(body(t, `{"title":"x","root":`+wide+`}`))
	if diff := cmp.Diff([]quire.Detail{quire.Beyond("root", "too_many", MaxNodes, MaxNodes+1)}, details(t, err)); diff != "" {
		t.Fatalf("10,001 nodes (-want +got):\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }

func TestDecodePatch(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       Patch
		problems   []quire.Detail
	}{
		{"empty", `{}`, Patch{}, nil},
		{"title and settings", `{"title":"T","settings":{"layout":"org"}}`,
			Patch{Title: ptr(blocks.Plain("T")), Settings: SettingsPatch{Layout: ptr("org")}}, nil},
		{"every op", `{"edits":[
			{"op":"add","parent_id":"` + idA + `","node":{"text":"n"},"after":"` + idB + `"},
			{"op":"update","node_id":"` + idA + `","text":"t","color":"red","collapsed":false},
			{"op":"move","node_id":"` + idB + `","parent_id":"` + idA + `","position":{"type":"start"}},
			{"op":"move","node_id":"` + idB + `","parent_id":"` + idA + `","position":{"type":"end"}},
			{"op":"delete","node_id":"` + idB + `"}]}`,
			Patch{Edits: []Edit{
				{Op: OpAdd, Path: "edits[0]", ParentID: idA, After: idB, Node: &Node{Text: "n", Color: "default"}},
				{Op: OpUpdate, Path: "edits[1]", NodeID: idA, Text: ptr("t"), Color: ptr("red"), Collapsed: ptr(false)},
				{Op: OpMove, Path: "edits[2]", NodeID: idB, ParentID: idA, Start: true},
				{Op: OpMove, Path: "edits[3]", NodeID: idB, ParentID: idA},
				{Op: OpDelete, Path: "edits[4]", NodeID: idB}}}, nil},
		{"problems of every edit", `{"edits":[
			{"op":"add","node":{}},
			{"op":"update","node_id":"` + idA + `","text":null},
			{"op":"move","node_id":"` + idA + `","parent_id":"` + idB + `","after":"` + idA + `"},
			{"op":"move","node_id":"` + idA + `","parent_id":"` + idB + `","after":"` + idB + `","position":{"type":"middle"}},
			{"op":"delete","node_id":"` + idA + `","node":{}},
			{"op":5},
			{},
			7,
			{"op":"add","parent_id":"` + idA + `","node":{"id":"` + idA + `"}},
			{"op":"add","parent_id":"` + idA + `","node":{"id":"` + idA + `"}}]}`,
			Patch{}, []quire.Detail{
				{Path: "edits[0].parent_id", Reason: "required"},
				{Path: "edits[1].text", Reason: "invalid_type"},
				{Path: "edits[2].after", Reason: "invalid_value"},
				{Path: "edits[3].position.type", Reason: "invalid_value"},
				{Path: "edits[3].position", Reason: "invalid_value"},
				{Path: "edits[4].node", Reason: "unknown_field"},
				{Path: "edits[5].op", Reason: "invalid_type"},
				{Path: "edits[6].op", Reason: "required"},
				{Path: "edits[7]", Reason: "invalid_type"},
				{Path: "edits[9].node.id", Reason: "invalid_value"}}},
		{"too many edits", `{"edits":[` + strings.Repeat(`{"op":"delete","node_id":"`+idA+`"},`, 100) + `{}]}`, Patch{},
			[]quire.Detail{quire.Beyond("edits", "too_many", 100, 101)}},
		{"unknown field", `{"root":{}}`, Patch{}, []quire.Detail{{Path: "root", Reason: "unknown_field"}}},
		{"settings not an object", `{"settings":"dark"}`, Patch{}, []quire.Detail{{Path: "settings", Reason: "invalid_type"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodePatch(body(t, tc.body))
			if diff := cmp.Diff(tc.problems, details(t, err)); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodeSizeHeight(t *testing.T) {
	n := &Node{Children: []*Node{{Children: []*Node{{}, {Children: []*Node{{}}}}}, {}}}
	if n.Size() != 6 || n.Height() != 4 {
		t.Errorf("Size, Height = %d, %d; want 6, 4", n.Size(), n.Height())
	}
}
