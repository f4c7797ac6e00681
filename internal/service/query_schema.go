package service

import (
	"bytes"
	"sync"

	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
)

// The schemas of recently queried databases, decoded, with their renderers. Decoding a
// database's stored schema (encoding/json) and preparing its renderer took 4–5% of a query's
// CPU (issue 15), on every query, for the same bytes.
//
// An entry is only ever used for the very bytes it was decoded from: each query compares the
// schema it read (the database's row, read by the request itself) with the entry's in full,
// so a schema changed through this server or any other sharing the database is decoded afresh
// on its first query. Nothing is answered from the cache that the request did not read.
//
// Bound (TestSchemaCache_Bound): at most schemaCacheEntries databases, and only schemas of at
// most schemaCacheMax stored bytes. An entry holds its stored bytes, the decoded schema and the
// renderer's prepared parts: the speed scenario's ten properties are 3.8 KB stored and take
// 20 KB of allocations to decode and prepare (an upper bound of what the entry keeps), about 6×.
// So the cache holds at most about 128 × 7 × 32 KB ≈ 28 MB, and ~24 KB per usual database.
const (
	schemaCacheEntries = 128
	schemaCacheMax     = 32 << 10
)

// schemaCache maps a database id to its last decoded schema. The zero value is ready.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]*querySchemaEntry
}

// querySchemaEntry is one database's schema as stored, decoded and prepared for rendering.
// It is never changed once made: requests share it.
type querySchemaEntry struct {
	stored []byte
	schema quire.Schema
	render *properties.Renderer
}

// schemaOf returns database db's schema and a renderer of its records, decoded from db's
// stored schema or taken from the cache when the cached entry was decoded from the same bytes.
// Callers must not change either.
func (s *Service) schemaOf(db *quire.Node) (quire.Schema, *properties.Renderer, error) {
	c := &s.schemas
	c.mu.Lock()
	e := c.m[db.ID]
	c.mu.Unlock()
	if e != nil && bytes.Equal(e.stored, db.Properties) {
		return e.schema, e.render, nil
	}
	schema, err := DatabaseSchema(db)
	if err != nil {
		return nil, nil, err
	}
	e = &querySchemaEntry{stored: bytes.Clone(db.Properties), schema: schema, render: properties.NewRenderer(schema)}
	if len(e.stored) <= schemaCacheMax {
		c.mu.Lock()
		if c.m == nil {
			c.m = make(map[string]*querySchemaEntry)
		}
		if _, ok := c.m[db.ID]; !ok && len(c.m) >= schemaCacheEntries {
			for id := range c.m { // any one: a database queried again is decoded again once
				delete(c.m, id)
				break
			}
		}
		c.m[db.ID] = e
		c.mu.Unlock()
	}
	return e.schema, e.render, nil
}
