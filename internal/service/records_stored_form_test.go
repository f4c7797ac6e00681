package service_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// TestRecordStoredForm_ShortAndLong: a record is stored with its plain rich texts in the short
// form; a record stored in full (as every record was before) answers the same bytes on every
// path that shows it, and an update of it (a mutation, a PATCH) merges into it as into a
// short one; moved out of its database, its title is stored in full again (a page's title is
// answered as stored). Twins hold the same values, one of each pair rewritten in the long form.
func TestRecordStoredForm_ShortAndLong(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			schema, err := properties.DecodeSchema(json.RawMessage(`{"Name":{"title":{}},"Text":{"rich_text":{}},"Num":{"number":{}},
				"Sel":{"select":{"options":[{"name":"a&b"}]}}}`), "properties")
			if err != nil {
				t.Fatal(err)
			}
			db, err := svc.CreateDatabase(ctx, p, service.NewDatabase{Parent: service.Parent{Type: quire.ParentWorkspace},
				Title: blocks.Plain("Forms"), Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			plain := func(s string) []any { return []any{map[string]any{"text": map[string]any{"content": s}}} }
			styled := func(s string) []any {
				return []any{map[string]any{"text": map[string]any{"content": s}},
					map[string]any{"text": map[string]any{"content": s, "link": map[string]any{"url": "https://x.test/?a=1&b=2"}},
						"annotations": map[string]any{"bold": true, "color": "red"}},
					map[string]any{"type": "equation", "equation": map[string]any{"expression": s}},
					map[string]any{"type": "mention", "mention": map[string]any{"user": map[string]any{"id": p.Token.OwnerID}}}}
			}
			texts := []string{"plain", `<b> & "q" \ é 漢字 😀`, "line\nbreak\ttab \u2028", ""}
			var ops []service.Mutation
			for i := range 2 * len(texts) { // each text twice, plain then styled, then the same again: twins i and i+2*len(texts)
				text := texts[i%len(texts)]
				rich := plain
				if i >= len(texts) {
					rich = styled
				}
				ops = append(ops, service.Mutation{Op: "create", Properties: map[string]any{"Name": map[string]any{"title": rich(text)},
					"Text": map[string]any{"rich_text": rich(text + "!")}, "Num": map[string]any{"number": float64(i)}, "Sel": map[string]any{"select": map[string]any{"name": "a&b"}}}})
			}
			ops = append(ops, ops...)
			for i := range ops {
				ops[i].Path = fmt.Sprintf("mutations[%d]", i)
			}
			created, err := svc.MutateRecords(ctx, p, db.ID, ops)
			if err != nil {
				t.Fatal(err)
			}
			half := len(created) / 2
			stored, err := st.Node(ctx, p.WorkspaceID(), created[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if s := string(stored.Properties); !strings.Contains(s, `"r":["plain"]`) || strings.Contains(s, "annotations") {
				t.Fatalf("a plain record is stored as %s; want its title as [\"plain\"] under \"r\"", s)
			}
			if string(stored.Title) != `["plain"]` {
				t.Fatalf("a plain record's title is stored as %s; want [\"plain\"]", stored.Title)
			}
			// The second half in the long form, as records were stored before.
			err = st.InTx(ctx, func(tx *store.Tx) error {
				for _, n := range created[half:] {
					cur, err := tx.Node(ctx, p.WorkspaceID(), n.ID)
					if err != nil {
						return err
					}
					long, err := properties.LongForm(cur.Properties)
					if err != nil {
						return err
					}
					if strings.Contains(string(long), `"r":[`) || !strings.Contains(string(long), `"rt":[`) {
						return fmt.Errorf("LongForm(%s) = %s", cur.Properties, long)
					}
					title, err := blocks.LongRichText(cur.Title)
					if err != nil {
						return err
					}
					if err := tx.Exec(ctx, `UPDATE nodes SET properties = $1, title = $3 WHERE id = $2`, string(long), n.ID, string(title)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			// answers are a record's properties on every path that shows them, without the
			// record's own id and times (the twins' differ).
			answers := func(when string) map[string][2]string {
				q, _ := service.DecodeRecordQuery([]byte(`{"page_size":100,"sorts":[{"property":"Num","direction":"ascending"}]}`))
				page, err := svc.QueryDatabase(ctx, p, db.ID, q)
				if err != nil || len(page.Items) != len(created) {
					t.Fatalf("%s: query: %d records, %v", when, len(page.Items), err)
				}
				got := map[string][2]string{}
				for _, n := range page.Items {
					one, err := svc.Page(ctx, p, n.ID)
					if err != nil {
						t.Fatal(err)
					}
					got[n.ID] = [2]string{string(n.Properties), string(one.Properties)}
				}
				return got
			}
			check := func(when string) {
				t.Helper()
				got := answers(when)
				for i, n := range created[:half] {
					short, long := got[n.ID], got[created[half+i].ID]
					if short != long || short[0] != short[1] {
						t.Errorf("%s: record %d reads\n%s\n%s\nstored in full:\n%s\n%s", when, i, short[0], short[1], long[0], long[1])
					}
				}
			}
			check("as created")
			// Each pair updated alike: a mutation on one property, a PATCH on another.
			var upd []service.Mutation
			for i, n := range created {
				upd = append(upd, service.Mutation{Op: "update", PageID: n.ID, Path: fmt.Sprintf("mutations[%d]", i),
					Properties: map[string]any{"Text": map[string]any{"rich_text": plain(fmt.Sprintf("new %d", i%half))}}})
			}
			if _, err := svc.MutateRecords(ctx, p, db.ID, upd); err != nil {
				t.Fatal(err)
			}
			check("after a mutation")
			for i, n := range created {
				if _, err := svc.PatchPage(ctx, p, n.ID, service.PagePatch{Properties: map[string]any{"Sel": map[string]any{"select": nil},
					"Num": map[string]any{"number": float64((i % half) * 10)}}}); err != nil {
					t.Fatal(err)
				}
			}
			check("after a PATCH")
			for _, n := range created {
				cur, err := st.Node(ctx, p.WorkspaceID(), n.ID)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(cur.Properties), `"rt":`) {
					t.Errorf("record %s rewritten keeps a long form: %s", n.ID, cur.Properties)
				}
			}
			// Moved out of the database, each becomes a page whose title is answered as stored:
			// in full, the same for both twins.
			for i, n := range created {
				if _, err := svc.MoveNode(ctx, p, n.ID, service.Move{To: service.Parent{Type: quire.ParentWorkspace}}, ""); err != nil {
					t.Fatal(err)
				}
				if i < half {
					continue
				}
				twin := created[i-half]
				a, err := st.Node(ctx, p.WorkspaceID(), twin.ID)
				if err != nil {
					t.Fatal(err)
				}
				b, err := st.Node(ctx, p.WorkspaceID(), n.ID)
				if err != nil {
					t.Fatal(err)
				}
				rt, err := blocks.UnmarshalRichText(a.Title)
				if err != nil {
					t.Fatal(err)
				}
				if string(a.Title) != string(b.Title) || string(a.Title) != string(blocks.AppendRichText(nil, rt)) || string(a.Properties) != "{}" {
					t.Errorf("moved out, record %d's title is stored as %s, its twin's as %s; want both in full", i-half, a.Title, b.Title)
				}
			}
		})
	}
}
