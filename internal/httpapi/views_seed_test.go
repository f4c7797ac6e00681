package httpapi

import (
	"context"
	"testing"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// Property and option ids of viewSchema, fixed so that expected answers can name them.
const (
	vpSel    = "5e1ec700-0000-4000-8000-000000000001"
	vpTags   = "5e1ec700-0000-4000-8000-000000000002"
	vpStatus = "5e1ec700-0000-4000-8000-000000000003"
	vpNum    = "5e1ec700-0000-4000-8000-000000000004"
	vpDue    = "5e1ec700-0000-4000-8000-000000000005"
	vpEnd    = "5e1ec700-0000-4000-8000-000000000006"
	vpDone   = "5e1ec700-0000-4000-8000-000000000007"
	vpFiles  = "5e1ec700-0000-4000-8000-000000000008"
	vpNotes  = "5e1ec700-0000-4000-8000-000000000009"
	voHigh   = "0e1ec700-0000-4000-8000-000000000001"
	voLow1   = "0e1ec700-0000-4000-8000-000000000002"
	voLow2   = "0e1ec700-0000-4000-8000-000000000003"
	voRed    = "0e1ec700-0000-4000-8000-000000000004"
	voBlue   = "0e1ec700-0000-4000-8000-000000000005"
	voDoing  = "0e1ec700-0000-4000-8000-000000000006"
	voDone   = "0e1ec700-0000-4000-8000-000000000007"
)

// viewSchema is a database with one property of most types. Priority has two options named
// "Low", so that name is ambiguous.
func viewSchema() quire.Schema {
	return quire.Schema{
		{ID: "title", Name: "Name", Type: quire.PropTitle},
		{ID: vpSel, Name: "Priority", Type: quire.PropSelect, Options: []quire.Option{
			{ID: voHigh, Name: "High", Color: "red"}, {ID: voLow1, Name: "Low", Color: "gray"}, {ID: voLow2, Name: "Low", Color: "blue"}}},
		{ID: vpTags, Name: "Tags", Type: quire.PropMultiSelect, Options: []quire.Option{
			{ID: voRed, Name: "red", Color: "red"}, {ID: voBlue, Name: "blue", Color: "blue"}}},
		{ID: vpStatus, Name: "Status", Type: quire.PropStatus, Options: []quire.Option{
			{ID: voDoing, Name: "Doing", Color: "blue"}, {ID: voDone, Name: "Done", Color: "green"}}},
		{ID: vpNum, Name: "Estimate", Type: quire.PropNumber, NumberFormat: "number"},
		{ID: vpDue, Name: "Due", Type: quire.PropDate},
		{ID: vpEnd, Name: "End", Type: quire.PropDate},
		{ID: vpDone, Name: "Done?", Type: quire.PropCheckbox},
		{ID: vpFiles, Name: "Attachments", Type: quire.PropFiles},
		{ID: vpNotes, Name: "Notes", Type: quire.PropRichText},
	}
}

// seedDatabase writes a database node with schema under parent (a page id, or "" for the
// workspace), as POST /v2/databases will once it exists on this branch, and returns its id.
// It is the one place that makes test databases: switch it to the HTTP endpoint after merge.
func seedDatabase(t testing.TB, e *env, parent string, schema quire.Schema) string {
	t.Helper()
	raw, err := properties.MarshalSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	pos, err := order.Between("", "")
	if err != nil {
		t.Fatal(err)
	}
	n := &quire.Node{
		ID: quire.NewID(), WorkspaceID: e.ws.ID, Object: quire.ObjectDatabase, PageType: quire.PageTypeDatabase,
		ParentType: quire.ParentWorkspace, Position: pos, Title: []byte(`[]`), Properties: raw, Description: []byte(`[]`),
		Version: 1, CreatedMs: 1, CreatedBy: e.owner.ID, EditedMs: 1, EditedBy: e.owner.ID,
	}
	if parent != "" {
		n.ParentType, n.ParentID = quire.ParentPage, parent
	}
	if err := e.store.InTx(context.Background(), func(tx *store.Tx) error { return tx.InsertNode(context.Background(), n) }); err != nil {
		t.Fatal(err)
	}
	return n.ID
}

// setViewSchema replaces a seeded database's schema, as PATCH /v2/databases would.
func setViewSchema(t testing.TB, e *env, db string, schema quire.Schema) {
	t.Helper()
	raw, err := properties.MarshalSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	err = e.store.InTx(context.Background(), func(tx *store.Tx) error {
		return tx.ExecForTest(context.Background(), `UPDATE nodes SET properties = $1, version = version + 1 WHERE id = $2`, string(raw), db)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// seedViewRecords writes n bare records of database db and returns their ids.
func seedViewRecords(t testing.TB, e *env, db string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	err := e.store.InTx(context.Background(), func(tx *store.Tx) error {
		for i := range ids {
			ids[i] = quire.NewID()
			r := &quire.Node{
				ID: ids[i], WorkspaceID: e.ws.ID, Object: quire.ObjectPage, PageType: quire.PageTypePage,
				ParentType: quire.ParentDatabase, ParentID: db, Position: "a" + ids[i], Title: []byte(`[]`),
				Properties: []byte(`{}`), Description: []byte(`[]`), Version: 1,
				CreatedMs: 1, CreatedBy: e.owner.ID, EditedMs: 1, EditedBy: e.owner.ID,
			}
			if err := tx.InsertNode(context.Background(), r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// seedRawView writes a view row directly, for kinds and stored forms the API would not make.
func seedRawView(t testing.TB, e *env, db, kind, spec string) string {
	t.Helper()
	id := quire.NewID()
	err := e.store.InTx(context.Background(), func(tx *store.Tx) error {
		return tx.InsertView(context.Background(), &quire.View{ID: id, WorkspaceID: e.ws.ID, DatabaseID: db,
			Position: "a0", Name: "raw", Type: kind, Spec: []byte(spec), Version: 1,
			CreatedMs: 1, CreatedBy: e.owner.ID, EditedMs: 1, EditedBy: e.owner.ID})
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}
