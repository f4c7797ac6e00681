package service

import (
	"encoding/json"
	"testing"

	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
)

// TestDecodedCreatesSchemaChanged: values decoded before a batch's transaction are used only
// while the database's stored schema is the one they were decoded against; after a change
// (here the property removed) the operation is decoded again and reports against the new one,
// and the stored form built with them is not used either.
func TestDecodedCreatesSchemaChanged(t *testing.T) {
	dbOf := func(raw string) *recordDB {
		schema, err := properties.DecodeSchema(json.RawMessage(raw), "properties")
		if err != nil {
			t.Fatal(err)
		}
		stored, err := properties.MarshalSchema(schema)
		if err != nil {
			t.Fatal(err)
		}
		return &recordDB{node: &quire.Node{Properties: stored}, schema: schema}
	}
	before := dbOf(`{"Name":{"title":{}},"Points":{"number":{}}}`)
	after := dbOf(`{"Name":{"title":{}}}`)
	m := Mutation{Op: "create", Path: "mutations[0]", Properties: map[string]any{"Points": map[string]any{"number": 3.0}}}
	vals, err := newRecordValues(before.schema, m.Properties, m.Path+".properties")
	if err != nil {
		t.Fatal(err)
	}
	d := &decodedCreates{schema: before.node.Properties, vals: []properties.Values{vals},
		forms: []*recordForm{formOf(before.schema, vals)}}
	got, form, err := d.values(before, 0, m)
	if err != nil || len(got) != 1 || form != d.forms[0] {
		t.Fatalf("values against the same schema = %v, %p, %v; want the decoded value and its form", got, form, err)
	}
	got, form, err = d.values(after, 0, m)
	qe, ok := quire.AsError(err)
	if !ok || len(qe.Details) != 1 || qe.Details[0].Path != "mutations[0].properties.Points" || form != nil {
		t.Fatalf("values against a changed schema = %v, %p, %v; want a problem at mutations[0].properties.Points", got, form, err)
	}
	var none *decodedCreates // the read before the transaction failed
	if got, form, err := none.values(before, 0, m); err != nil || len(got) != 1 || form != nil {
		t.Fatalf("values without a read before = %v, %p, %v", got, form, err)
	}
}
