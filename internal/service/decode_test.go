package service_test

import (
	"encoding/json"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

func TestDecodeNewPage(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		path       string // "" when the body is valid
		reason     string
	}{
		{"workspace parent", `{"parent":{"type":"workspace","workspace":true}}`, "", ""},
		{"page parent without type", `{"parent":{"page_id":"7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"}}`, "", ""},
		{"missing parent is the workspace", `{}`, "", ""},
		{"null parent", `{"parent":null}`, "parent", quire.ReasonRequired},
		{"parent not an object", `{"parent":"x"}`, "parent", quire.ReasonInvalidType},
		{"two parents", `{"parent":{"workspace":true,"page_id":"7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"}}`, "parent.type", quire.ReasonRequired},
		{"bad parent id", `{"parent":{"type":"page_id","page_id":"nope"}}`, "parent.page_id", quire.ReasonInvalidValue},
		{"unknown parent type", `{"parent":{"type":"block_id","block_id":"x"}}`, "parent.type", quire.ReasonInvalidValue},
		{"workspace false", `{"parent":{"workspace":false}}`, "parent.workspace", quire.ReasonInvalidValue},
		{"page type", `{"parent":{"workspace":true},"page_type":"board"}`, "page_type", quire.ReasonInvalidValue},
		{"unknown field", `{"parent":{"workspace":true},"colour":1}`, "colour", quire.ReasonUnknownField},
		{"other property", `{"parent":{"workspace":true},"properties":{"Name":{"title":[]}}}`, "properties.Name", quire.ReasonUnknownField},
		{"title too long", `{"parent":{"workspace":true},"properties":{"title":[{"text":{"content":"` + string(make([]byte, 0)) + `"}}]}}`, "", ""},
		{"folder with children", `{"parent":{"workspace":true},"page_type":"folder","children":[]}`, "children", quire.ReasonInvalidValue},
		{"children and markdown", `{"parent":{"workspace":true},"children":[],"markdown":"x"}`, "markdown", quire.ReasonInvalidValue},
		{"cover emoji", `{"parent":{"workspace":true},"cover":{"type":"emoji","emoji":"x"}}`, "cover.type", quire.ReasonInvalidValue},
		{"nested child error", `{"parent":{"workspace":true},"children":[{"paragraph":{"rich_text":[{"text":{"content":5}}]}}]}`,
			"children[0].paragraph.rich_text[0].text.content", quire.ReasonInvalidType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body map[string]any
			if err := json.Unmarshal([]byte(tc.body), &body); err != nil {
				t.Fatal(err)
			}
			_, _, err := service.DecodeNewPage(body)
			if tc.path == "" {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			qe, ok := quire.AsError(err)
			if !ok {
				t.Fatalf("err = %v, want a validation_error", err)
			}
			for _, d := range qe.Details {
				if d.Path == tc.path && d.Reason == tc.reason {
					return
				}
			}
			t.Fatalf("details %v lack {%s %s}", qe.Details, tc.path, tc.reason)
		})
	}
}

// checkDecodeError fails unless err is nil or a *quire.Error whose details all have paths.
func checkDecodeError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	qe, ok := quire.AsError(err)
	if !ok {
		t.Fatalf("not a quire.Error: %v", err)
	}
	if qe.Code == quire.CodeValidation && len(qe.Details) == 0 {
		t.Fatalf("validation_error without details: %v", err)
	}
	for _, d := range qe.Details {
		if d.Path == "" || d.Reason == "" {
			t.Fatalf("detail without path or reason: %v", qe.Details)
		}
	}
}

func FuzzDecodeNewPage(f *testing.F) {
	for _, s := range []string{
		`{"parent":{"workspace":true},"properties":{"title":[{"text":{"content":"a"}}]}}`,
		`{"parent":{"page_id":"7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"},"page_type":"folder","icon":{"emoji":"📘"}}`,
		`{"parent":{"type":"database_id","database_id":"x"},"children":[{"to_do":{"rich_text":[],"checked":true}}]}`,
		`{"parent":{},"markdown":"# hi","cover":{"external":{"url":"https://x"}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var body map[string]any
		if json.Unmarshal([]byte(s), &body) != nil {
			return
		}
		_, _, err := service.DecodeNewPage(body)
		checkDecodeError(t, err)
		_, err = service.DecodePagePatch(body)
		checkDecodeError(t, err)
		_, err = service.DecodeMove(body)
		checkDecodeError(t, err)
		_, err = service.DecodePlacement(body)
		checkDecodeError(t, err)
	})
}
