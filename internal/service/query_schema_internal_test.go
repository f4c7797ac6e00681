package service

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
)

// TestSchemaCache_Bound: the cache keeps at most schemaCacheEntries databases and no schema
// over schemaCacheMax stored bytes, and an entry is used only for the bytes it was decoded from.
func TestSchemaCache_Bound(t *testing.T) {
	stored := func(name string) []byte {
		b, err := properties.MarshalSchema(quire.Schema{{ID: "title", Name: name, Type: quire.PropTitle}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	s := &Service{}
	for i := range 3 * schemaCacheEntries {
		db := &quire.Node{ID: fmt.Sprintf("db%d", i), Properties: stored("Name")}
		if _, _, err := s.schemaOf(db); err != nil {
			t.Fatal(err)
		}
		if n := len(s.schemas.m); n > schemaCacheEntries {
			t.Fatalf("%d entries after %d databases; at most %d", n, i+1, schemaCacheEntries)
		}
	}
	big := &quire.Node{ID: "big", Properties: stored(strings.Repeat("n", schemaCacheMax))}
	if schema, _, err := s.schemaOf(big); err != nil || len(schema) != 1 {
		t.Fatalf("big schema: %v, %v", schema, err)
	}
	if _, ok := s.schemas.m["big"]; ok {
		t.Fatalf("a schema of %d bytes was kept; at most %d", len(big.Properties), schemaCacheMax)
	}
	// The same database with other bytes is decoded from them, and replaces the entry.
	db := &quire.Node{ID: "db1", Properties: stored("First")}
	for _, name := range []string{"First", "Second", "First"} {
		db.Properties = stored(name)
		schema, r, err := s.schemaOf(db)
		if err != nil || schema[0].Name != name {
			t.Fatalf("schema of %s = %v, %v", db.Properties, schema, err)
		}
		out, err := r.Append(nil, nil, properties.Computed{})
		if err != nil || !strings.Contains(string(out), `"`+name+`"`) {
			t.Fatalf("rendered %s, %v; want the property %s", out, err, name)
		}
	}
}
