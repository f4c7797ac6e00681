package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/views"
)

// RecordQuery is a validated POST /v2/databases/:id/query body; the filter and sorts stay raw
// until the database's schema is read.
type RecordQuery struct {
	Filter, Sorts    json.RawMessage
	StartCursor      string
	PageSize         int
	FilterProperties []string // nil: every property
	ViewID           string   // "": no view; else the records as this view of the database shows them
}

// DecodeRecordQuery validates a query body's shape (the filter and sorts are checked against
// the schema by QueryDatabase).
func DecodeRecordQuery(raw []byte) (RecordQuery, error) {
	out := RecordQuery{PageSize: defaultPageSize}
	if len(raw) == 0 {
		return out, nil
	}
	body, members, err := jsonbody.ParseMembers(raw)
	if err != nil {
		return out, err
	}
	var p quire.Problems
	for _, k := range jsonbody.SortedKeys(body) {
		if !RecordQueryBody.Takes(&p, k) {
			continue
		}
		v := body[k]
		switch k {
		case "filter":
			out.Filter = members[k]
		case "sorts":
			out.Sorts = members[k]
		case "start_cursor":
			out.StartCursor = nullableString(&p, k, v)
		case "view_id":
			out.ViewID = nullableString(&p, k, v)
		case "page_size":
			out.PageSize = decodePageSize(&p, v, out.PageSize)
		case "filter_properties":
			arr, ok := v.([]any)
			if !ok {
				p.Add(k, quire.ReasonInvalidType, "filter_properties must be an array of property ids.")
				continue
			}
			out.FilterProperties = []string{}
			for i, e := range arr {
				s, ok := e.(string)
				if !ok {
					p.Add(fmt.Sprintf("%s[%d]", k, i), quire.ReasonInvalidType, "A property id is a string.")
					continue
				}
				out.FilterProperties = append(out.FilterProperties, s)
			}
		}
	}
	return out, p.Err()
}

// nullableString reads body field key, a string or null ("").
func nullableString(p *quire.Problems, key string, v any) string {
	s, ok := v.(string)
	if !ok && v != nil {
		p.Add(key, quire.ReasonInvalidType, key+" must be a string or null.")
	}
	return s
}

// hasUniqueID reports whether schema shows a unique_id property, the one that reads a record's
// number.
func hasUniqueID(schema quire.Schema) bool {
	return slices.ContainsFunc(schema, func(p *quire.Property) bool { return p.Type == quire.PropUniqueID })
}

// QueryDatabase runs a query on a database's records in the engine: the filter and sorts
// compiled to SQL on record_values' indexes (internal/dbquery), a keyset cursor that carries
// the last record's sort keys.
func (s *Service) QueryDatabase(ctx context.Context, p *quire.Principal, id string, q RecordQuery) (Results[*quire.Node], error) {
	db, err := s.Database(ctx, p, id)
	if err != nil {
		return Results[*quire.Node]{}, err
	}
	schema, render, err := s.schemaOf(db)
	if err != nil {
		return Results[*quire.Node]{}, err
	}
	dbSchema := querySchema(schema)
	filter, sorts, err := dbquery.Decode(dbSchema, q.Filter, q.Sorts)
	if err != nil {
		return Results[*quire.Node]{}, err
	}
	var viewKey []byte
	if q.ViewID != "" {
		if filter, sorts, viewKey, err = s.throughView(ctx, p, id, q.ViewID, schema, dbSchema, filter, sorts); err != nil {
			return Results[*quire.Node]{}, err
		}
	}
	var keep map[string]bool
	if q.FilterProperties != nil {
		var pr quire.Problems
		keep = map[string]bool{}
		for i, key := range q.FilterProperties {
			prop := schema.ByID(key)
			if prop == nil {
				prop = schema.ByName(key)
			}
			if prop == nil {
				pr.Add(fmt.Sprintf("filter_properties[%d]", i), quire.ReasonInvalidValue, "Could not find property with name or id: "+key+".")
				continue
			}
			keep[prop.ID] = true
		}
		if err := pr.Err(); err != nil {
			return Results[*quire.Node]{}, err
		}
	}
	// A cursor belongs to one query of one database: another filter or order would read its
	// position wrongly.
	sum := sha256.Sum256(slices.Concat(q.Filter, []byte{0}, q.Sorts, []byte{0}, viewKey))
	list := "query:" + id + ":" + hex.EncodeToString(sum[:8])
	dq := dbquery.Query{DatabaseID: id, Filter: filter, Sorts: sorts, Now: time.Now()}
	if q.StartCursor != "" {
		dq.After = &dbquery.Position{}
		if err := s.cursors.Decode(q.StartCursor, list, dq.After); err != nil {
			return Results[*quire.Node]{}, InvalidCursor()
		}
	}
	// Rendered under the schema the filter was read with, rather than the database read again.
	shown := schema
	if keep != nil {
		shown = slices.DeleteFunc(slices.Clone(schema), func(prop *quire.Property) bool { return !keep[prop.ID] })
	}
	page, err := s.queryRecords(ctx, p.WorkspaceID(), dq, q.PageSize, hasUniqueID(shown))
	if err != nil {
		return Results[*quire.Node]{}, err
	}
	if keep != nil {
		render = properties.NewRenderer(shown)
	}
	if err := renderWith(page.Records, render, page.Numbers); err != nil {
		return Results[*quire.Node]{}, err
	}
	out := Results[*quire.Node]{Items: page.Records}
	if page.Next != nil {
		if out.NextCursor, err = s.cursors.Encode(list, page.Next); err != nil {
			return Results[*quire.Node]{}, err
		}
	}
	return out, nil
}

// throughView narrows a query to what view viewID of database db shows: its filter and the
// request's as an and, and the request's sorts first, then the view's as tie-breakers (a sort
// on a property the request sorts by already is left out). viewKey names the view's filter and
// sorts as they are now, for the cursor: a cursor made before the view changed is refused. A
// view_id that is not a view of this database (unknown, in trash, another database's) answers
// 400 at view_id.
func (s *Service) throughView(ctx context.Context, p *quire.Principal, db, viewID string, schema quire.Schema, dbSchema *dbquery.Schema,
	filter dbquery.Expr, sorts []dbquery.Sort) (dbquery.Expr, []dbquery.Sort, []byte, error) {
	notAView := quire.Invalid("view_id", quire.ReasonInvalidValue, "view_id is not a view of this database.")
	if !quire.ValidID(viewID) {
		return nil, nil, nil, notAView
	}
	row, err := s.store.View(ctx, p.WorkspaceID(), db, viewID)
	if quire.IsCode(err, quire.CodeNotFound) || (err == nil && (row.InTrash || !views.IsKind(row.Type))) {
		return nil, nil, nil, notAView
	}
	if err != nil {
		return nil, nil, nil, err
	}
	spec, err := views.Unmarshal(row.Spec)
	if err != nil {
		return nil, nil, nil, err
	}
	shown := views.Read(schema, spec, false)
	vf, vs, err := dbquery.FromView(dbSchema, shown.Filter, shown.Sorts, "view_id")
	if err != nil {
		return nil, nil, nil, err
	}
	switch {
	case vf == nil:
	case filter == nil:
		filter = vf
	default:
		filter = dbquery.And{vf, filter}
	}
	for _, st := range vs {
		if !slices.ContainsFunc(sorts, func(r dbquery.Sort) bool { return r.PropertyID == st.PropertyID && r.Type == st.Type }) {
			sorts = append(sorts, st)
		}
	}
	key, err := json.Marshal([]any{viewID, shown.Filter, shown.Sorts})
	return filter, sorts, key, err
}
