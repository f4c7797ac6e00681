package service_test

import (
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// wantDetail fails unless err is a validation error (or, for path "", nil) with {path reason}.
func wantDetail(t *testing.T, err error, path, reason string) {
	t.Helper()
	if path == "" {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	qe, ok := quire.AsError(err)
	if !ok {
		t.Fatalf("err = %v, want a quire.Error", err)
	}
	if reason == quire.CodeInvalidJSON {
		if qe.Code != quire.CodeInvalidJSON {
			t.Fatalf("code = %s, want invalid_json", qe.Code)
		}
		return
	}
	for _, d := range qe.Details {
		if d.Path == path && d.Reason == reason {
			return
		}
	}
	t.Fatalf("details %v lack {%s %s}", qe.Details, path, reason)
}

const pageID = "7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"

func TestDecodeDatabaseBodies(t *testing.T) {
	parent := `"parent":{"page_id":"` + pageID + `"}`
	for _, tc := range []struct {
		name, which, body string
		path, reason      string
	}{
		{"minimal", "new", `{` + parent + `,"properties":{"Name":{"title":{}}}}`, "", ""},
		{"not an object", "new", `[]`, "body", quire.CodeInvalidJSON},
		{"no properties", "new", `{` + parent + `}`, "properties", quire.ReasonRequired},
		{"database parent", "new", `{"parent":{"database_id":"` + pageID + `"},"properties":{"Name":{"title":{}}}}`, "parent.type", quire.ReasonInvalidValue},
		{"bad title", "new", `{` + parent + `,"title":"x","properties":{"Name":{"title":{}}}}`, "title", quire.ReasonInvalidType},
		{"is_inline not bool", "new", `{` + parent + `,"is_inline":1,"properties":{"Name":{"title":{}}}}`, "is_inline", quire.ReasonInvalidType},
		{"select option twice", "new", `{` + parent + `,"properties":{"Name":{"title":{}},"S":{"select":{"options":[{"name":"a"},{"name":"a"}]}}}}`, "properties.S.select.options[1].name", quire.ReasonInvalidValue},
		{"number format", "new", `{` + parent + `,"properties":{"Name":{"title":{}},"N":{"number":{"format":"roman"}}}}`, "properties.N.number.format", quire.ReasonInvalidValue},
		{"patch ok", "patch", `{"title":[],"properties":{"X":null},"in_trash":false}`, "", ""},
		{"patch unknown", "patch", `{"schema":{}}`, "schema", quire.ReasonUnknownField},
		{"patch properties array", "patch", `{"properties":[]}`, "properties", quire.ReasonInvalidType},
		{"query ok", "query", `{"filter":{"property":"x"},"page_size":5,"filter_properties":["a"]}`, "", ""},
		{"query page_size fraction", "query", `{"page_size":1.5}`, "page_size", quire.ReasonOutOfRange},
		{"query page_size string", "query", `{"page_size":"5"}`, "page_size", quire.ReasonInvalidType},
		{"query unknown", "query", `{"limit":5}`, "limit", quire.ReasonUnknownField},
		{"query filter_properties", "query", `{"filter_properties":[1]}`, "filter_properties[0]", quire.ReasonInvalidType},
		{"mutations ok", "mutations", `{"mutations":[{"op":"create","properties":{}},{"op":"trash","page_id":"` + pageID + `"}]}`, "", ""},
		{"mutations missing", "mutations", `{}`, "mutations", quire.ReasonRequired},
		{"mutations empty", "mutations", `{"mutations":[]}`, "mutations", quire.ReasonRequired},
		{"mutation op missing", "mutations", `{"mutations":[{}]}`, "mutations[0].op", quire.ReasonRequired},
		{"mutation page_id", "mutations", `{"mutations":[{"op":"create"},{"op":"restore","page_id":"x"}]}`, "mutations[1].page_id", quire.ReasonInvalidValue},
		{"mutation field", "mutations", `{"mutations":[{"op":"trash","page_id":"` + pageID + `","properties":{}}]}`, "mutations[0].properties", quire.ReasonUnknownField},
		{"mutation update needs properties", "mutations", `{"mutations":[{"op":"update","page_id":"` + pageID + `"}]}`, "mutations[0].properties", quire.ReasonRequired},
		{"mutation child", "mutations", `{"mutations":[{"op":"create","children":[{"paragraph":{"rich_text":5}}]}]}`, "mutations[0].children[0].paragraph.rich_text", quire.ReasonInvalidType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantDetail(t, decodeBody(tc.which, []byte(tc.body)), tc.path, tc.reason)
		})
	}
}

func decodeBody(which string, b []byte) error {
	var err error
	switch which {
	case "new":
		_, err = service.DecodeNewDatabase(b)
	case "patch":
		_, err = service.DecodeDatabasePatch(b)
	case "query":
		_, err = service.DecodeRecordQuery(b)
	case "mutations":
		_, err = service.DecodeMutations(b)
	}
	return err
}

// FuzzDecodeDatabaseBodies feeds every database decoder: none panics, and every problem has
// a path and a reason.
func FuzzDecodeDatabaseBodies(f *testing.F) {
	for _, s := range []string{
		`{"parent":{"page_id":"` + pageID + `"},"title":[{"text":{"content":"T"}}],"properties":{"Name":{"title":{}},"S":{"select":{"options":[{"name":"a","color":"red"}]}},"R":{"relation":{"database_id":"` + pageID + `","dual_property":{}}}}}`,
		`{"title":[],"description":null,"properties":{"S":null,"N":{"name":"M"},"X":{"type":"status","status":{}}},"in_trash":true,"icon":{"emoji":"x"}}`,
		`{"filter":{"and":[{"property":"x","number":{"equals":1}}]},"sorts":[{"timestamp":"created_time","direction":"ascending"}],"start_cursor":"c","page_size":3,"filter_properties":["a"]}`,
		`{"mutations":[{"op":"create","properties":{"Name":[{"text":{"content":"a"}}]},"children":[{"paragraph":{"rich_text":[]}}]},{"op":"update","page_id":"` + pageID + `","properties":{}}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, which := range []string{"new", "patch", "query", "mutations"} {
			checkDecodeError(t, decodeBody(which, []byte(s)))
		}
	})
}
