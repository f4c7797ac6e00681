package service_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// TestMutationCreatesStoreAsCreateRecord: a mutation batch builds its new records' stored
// forms (title, properties JSON, record_values rows) before its transaction, POST /v2/pages
// with a database parent builds them inside its own; both store the same thing for the same
// values, and the rows its stored values give, every property registered so that every row is kept, on a database without a
// unique_id property (where the batch's forms are used) and on one with it (where they are
// not: the number is known only in the transaction).
func TestMutationCreatesStoreAsCreateRecord(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			for _, numbered := range []bool{false, true} {
				raw := indexedSchema
				if !numbered {
					raw = strings.Replace(raw, `"Key":{"unique_id":{"prefix":"R"}},`, "", 1)
				}
				schema, err := properties.DecodeSchema(json.RawMessage(raw), "properties")
				if err != nil {
					t.Fatal(err)
				}
				key := ""
				if q := schema.ByName("Key"); q != nil {
					key = q.ID
				}
				db := indexedDatabase(t, svc, p, "Forms", schema).ID
				registerAll(t, st, db, schema)
				const n = 8
				var ops []service.Mutation
				for i := range n {
					ops = append(ops, service.Mutation{Op: "create", Path: fmt.Sprintf("mutations[%d]", i), Properties: indexedValues(i, 0, p.Token.OwnerID)})
				}
				batch, err := svc.MutateRecords(ctx, p, db, ops)
				if err != nil {
					t.Fatal(err)
				}
				for i, b := range batch {
					one, err := svc.CreateRecord(ctx, p, service.NewPage{Parent: service.Parent{Type: quire.ParentDatabase, ID: db},
						PageType: quire.PageTypePage, Properties: indexedValues(i, 0, p.Token.OwnerID)})
					if err != nil {
						t.Fatal(err)
					}
					want, got := storedForm(t, st, p, schema, one.ID, key, int64(n+i+1)), storedForm(t, st, p, schema, b.ID, key, int64(i+1))
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("unique_id %v, record %d (-POST /v2/pages +mutations):\n%s", numbered, i, diff)
					}
				}
			}
		})
	}
}

// registerAll registers every property of database db, so that writers keep all their rows.
func registerAll(t *testing.T, st *store.Store, db string, schema quire.Schema) {
	t.Helper()
	var all []string
	for _, prop := range schema {
		all = append(all, prop.ID)
	}
	if err := st.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.LockIndexing(ctx, db); err != nil {
			return err
		}
		_, err := tx.RegisterIndexed(ctx, db, all)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// storedForm is what record id of a database of schema stores: its title, properties and
// record_values rows, the rows checked against those its stored values give
// (properties.Scalars with its number, and the record number's). Its number's rows (the record
// number's, and key's when key names a unique_id property) are written as N.
func storedForm(t *testing.T, st *store.Store, p *quire.Principal, schema quire.Schema, id, key string, number int64) []string {
	t.Helper()
	n, err := st.Node(ctx, p.WorkspaceID(), id)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.RowsForTest(ctx, `SELECT property_id || '|' || CAST(ord AS TEXT) || '|' || COALESCE(v_text, '-') || '|' ||
		COALESCE(CAST(v_num AS TEXT), '-') FROM record_values WHERE record_id = $1`, id)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := properties.UnmarshalValues(n.Properties)
	if err != nil {
		t.Fatal(err)
	}
	row := func(prop string, ord int, text *string, num *float64) string {
		f := []string{prop, strconv.Itoa(ord), "-", "-"}
		if text != nil {
			f[2] = *text
		}
		if num != nil {
			f[3] = strconv.FormatFloat(*num, 'g', -1, 64)
		}
		if prop == store.NumberProperty || prop == key {
			f[3] = "N"
		}
		return strings.Join(f, "|")
	}
	want := []string{row(store.NumberProperty, 0, nil, nil)}
	for _, sc := range properties.Scalars(schema, vals, number) {
		want = append(want, row(sc.PropertyID, sc.Ord, sc.Text, sc.Num))
	}
	for i, r := range rows {
		f := strings.Split(r, "|")
		v, err := strconv.ParseFloat(f[3], 64)
		if (f[0] == store.NumberProperty || f[0] == key) && (err != nil || v != float64(number)) {
			t.Errorf("record %s's row %q; want its number %d", id, r, number)
		}
		ord, _ := strconv.Atoi(f[1])
		var text *string
		if f[2] != "-" {
			text = &f[2]
		}
		var num *float64
		if err == nil {
			num = &v
		}
		rows[i] = row(f[0], ord, text, num)
	}
	slices.Sort(rows)
	slices.Sort(want)
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("record %s's rows (-from its stored values +stored):\n%s", id, diff)
	}
	if plain := vals.Title(schema).PlainText(); plain != n.TitlePlain {
		t.Errorf("record %s's title_plain %q; its values' title reads %q", id, n.TitlePlain, plain)
	}
	return append([]string{string(n.Title), n.TitlePlain, string(n.Properties)}, rows...)
}
