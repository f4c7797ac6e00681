package service

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/views"
)

// DatabaseView is a view with what its read shape needs: its settings and the schema of its
// database, against which references to deleted properties are pruned.
type DatabaseView struct {
	Row    *quire.View
	Spec   *views.View
	Schema quire.Schema
}

// Meta is what views.Encode writes beside the settings.
func (v *DatabaseView) Meta() views.Meta {
	return views.Meta{ID: v.Row.ID, DatabaseID: v.Row.DatabaseID, CreatedTime: v.Row.CreatedMs,
		LastEditedTime: v.Row.EditedMs, InTrash: v.Row.InTrash}
}

// Encode is the view's read shape; detail adds page_sort (the view detail endpoint only).
func (v *DatabaseView) Encode(detail bool) json.RawMessage {
	return views.Encode(v.Schema, v.Meta(), v.Spec, detail)
}

// viewDatabase returns database id with its schema, when the caller reaches it (in trash too);
// anything else, a page included, is not_found. Access to a view is access to its database.
func (s *Service) viewDatabase(ctx context.Context, p *quire.Principal, id string) (*quire.Node, quire.Schema, error) {
	n, err := s.readNode(ctx, p, id, "database", isDatabase)
	if err != nil {
		return nil, nil, err
	}
	return viewDatabaseSchema(n)
}

// viewDatabaseTx is viewDatabase inside a write transaction, with the database's row locked
// (PostgreSQL) so that the writes to one database's views run one at a time.
func (s *Service) viewDatabaseTx(ctx context.Context, tx *store.Tx, p *quire.Principal, id string) (*quire.Node, quire.Schema, error) {
	if err := s.reachTx(ctx, tx, p, id, "database "+id); err != nil {
		return nil, nil, err
	}
	n, err := lockNode(ctx, tx, p.WorkspaceID(), id, "database", isDatabase)
	if err != nil {
		return nil, nil, err
	}
	return viewDatabaseSchema(n)
}

// viewDatabaseSchema is database n (of the kind already checked) with its schema.
func viewDatabaseSchema(n *quire.Node) (*quire.Node, quire.Schema, error) {
	schema, err := DatabaseSchema(n)
	if err != nil {
		return nil, nil, err
	}
	return n, schema, nil
}

// openView reads a stored view's settings. A view of a kind V2 does not expose is not_found.
func openView(row *quire.View, schema quire.Schema) (*DatabaseView, error) {
	if !views.IsKind(row.Type) {
		return nil, quire.NotFound("view " + row.ID)
	}
	spec, err := views.Unmarshal(row.Spec)
	if err != nil {
		return nil, err
	}
	return &DatabaseView{Row: row, Spec: spec, Schema: schema}, nil
}

// View returns view id of database db (in trash too), or not_found.
func (s *Service) View(ctx context.Context, p *quire.Principal, db, id string) (*DatabaseView, error) {
	_, schema, err := s.viewDatabase(ctx, p, db)
	if err != nil {
		return nil, err
	}
	if !quire.ValidID(id) {
		return nil, quire.NotFound("view " + id)
	}
	row, err := s.store.View(ctx, p.WorkspaceID(), db, id)
	if err != nil {
		return nil, err
	}
	return openView(row, schema)
}

// ListViews pages through the views of database db in order, leaving out views in trash.
func (s *Service) ListViews(ctx context.Context, p *quire.Principal, db, startCursor string, pageSize int) (Results[*DatabaseView], error) {
	if err := checkPageSize(pageSize); err != nil {
		return Results[*DatabaseView]{}, err
	}
	_, schema, err := s.viewDatabase(ctx, p, db)
	if err != nil {
		return Results[*DatabaseView]{}, err
	}
	list := "views:" + db
	var after *store.ViewKey
	if startCursor != "" {
		after = &store.ViewKey{}
		if err := s.cursors.Decode(startCursor, list, after); err != nil {
			return Results[*DatabaseView]{}, InvalidCursor()
		}
	}
	rows, err := s.store.Views(ctx, db, views.Kinds, after, pageSize+1)
	if err != nil {
		return Results[*DatabaseView]{}, err
	}
	pg, err := paginate(s, list, rows, pageSize, func(v *quire.View) any { return store.ViewKey{Position: v.Position, ID: v.ID} })
	if err != nil {
		return Results[*DatabaseView]{}, err
	}
	out := Results[*DatabaseView]{Items: make([]*DatabaseView, len(pg.Items)), NextCursor: pg.NextCursor}
	for i, row := range pg.Items {
		if out.Items[i], err = openView(row, schema); err != nil {
			return Results[*DatabaseView]{}, err
		}
	}
	return out, nil
}

// CreateView decodes a POST /v2/databases/:id/views body against the database's schema and
// adds the view after the database's other views. The body is checked once the database is
// found: a caller out of reach learns nothing of its properties.
func (s *Service) CreateView(ctx context.Context, p *quire.Principal, db string, body any) (*DatabaseView, error) {
	var out *DatabaseView
	err := s.store.InTx(ctx, func(tx *store.Tx) error {
		n, schema, err := s.viewDatabaseTx(ctx, tx, p, db)
		if err != nil {
			return err
		}
		spec, err := views.DecodeCreate(schema, body)
		if err != nil {
			return err
		}
		if n.Hidden() {
			return quire.Invalid("database_id", quire.ReasonArchived, "The database is in trash; restore it first.")
		}
		raw, err := views.Marshal(spec)
		if err != nil {
			return err
		}
		last, err := tx.LastViewPosition(ctx, db)
		if err != nil {
			return err
		}
		pos, err := order.Between(last, "")
		if err != nil {
			return err
		}
		now := quire.NowMillis()
		row := &quire.View{
			ID: quire.NewID(), WorkspaceID: p.WorkspaceID(), DatabaseID: db, Position: pos,
			Name: spec.Name, Type: spec.Type, Spec: raw, Version: 1,
			CreatedMs: now, CreatedBy: p.Token.OwnerID, EditedMs: now, EditedBy: p.Token.OwnerID,
		}
		if err := tx.InsertView(ctx, row); err != nil {
			return err
		}
		recordView(tx, p, quire.EventViewCreated, row)
		out = &DatabaseView{Row: row, Spec: spec, Schema: schema}
		return nil
	})
	if err == nil {
		s.indexView(ctx, p.WorkspaceID(), db, out)
	}
	return out, err
}

// PatchView applies a PATCH body to view id of database db: the settings views.DecodePatch
// reads, and in_trash (true trashes the view like DELETE, false restores it). page_sort must
// name records of the database. ifMatch, when set, must be the view's current version.
func (s *Service) PatchView(ctx context.Context, p *quire.Principal, db, id string, body any, ifMatch string) (*DatabaseView, error) {
	var inTrash *bool
	badTrash := false
	if m, isObject := body.(map[string]any); isObject {
		if raw, ok := m["in_trash"]; ok {
			// The settings decoder knows nothing of trash: hand it the body without in_trash.
			rest := make(map[string]any, len(m))
			for k, v := range m {
				rest[k] = v
			}
			delete(rest, "in_trash")
			body = rest
			if t, ok := raw.(bool); ok {
				inTrash = &t
			} else {
				badTrash = true
			}
		}
	}
	var out *DatabaseView
	err := s.store.InTx(ctx, func(tx *store.Tx) error {
		n, schema, err := s.viewDatabaseTx(ctx, tx, p, db)
		if err != nil {
			return err
		}
		if !quire.ValidID(id) {
			return quire.NotFound("view " + id)
		}
		row, err := tx.View(ctx, p.WorkspaceID(), db, id)
		if err != nil {
			return err
		}
		cur, err := openView(row, schema)
		if err != nil {
			return err
		}
		spec, err := views.DecodePatch(schema, cur.Spec, body)
		if badTrash {
			// Reported with the settings' problems, every one at once.
			var pr quire.Problems
			pr.Add("in_trash", quire.ReasonInvalidType, "in_trash must be a boolean.")
			if err != nil {
				mergeProblems(&pr, err)
			}
			return pr.Err()
		}
		if err != nil {
			return err
		}
		if err := CheckVersion(ifMatch, row.Version); err != nil {
			return err
		}
		if n.Hidden() {
			return quire.Invalid("database_id", quire.ReasonArchived, "The view's database is in trash; restore it first.")
		}
		restoring := inTrash != nil && !*inTrash
		if row.InTrash && !restoring && viewSettingsChange(body) {
			return quire.Invalid("in_trash", quire.ReasonArchived, "The view is in trash; restore it with in_trash false first.")
		}
		if err := s.checkPageSort(ctx, tx, db, spec.PageSort, body); err != nil {
			return err
		}
		if row.Spec, err = views.Marshal(spec); err != nil {
			return err
		}
		row.Name = spec.Name
		recordView(tx, p, viewEvent(row, inTrash), row)
		if inTrash != nil {
			row.InTrash = *inTrash
		}
		row.EditedMs, row.EditedBy = quire.NowMillis(), p.Token.OwnerID
		if err := tx.UpdateView(ctx, row); err != nil {
			return err
		}
		out = &DatabaseView{Row: row, Spec: spec, Schema: schema}
		return nil
	})
	if err == nil {
		s.indexView(ctx, p.WorkspaceID(), db, out)
	}
	return out, err
}

// TrashView puts a view in trash (DELETE): it leaves the list and still reads, in_trash true.
func (s *Service) TrashView(ctx context.Context, p *quire.Principal, db, id string) (*DatabaseView, error) {
	return s.PatchView(ctx, p, db, id, map[string]any{"in_trash": true}, "")
}

// viewSettingsChange reports whether a patch body (without in_trash) changes anything.
func viewSettingsChange(body any) bool {
	m, _ := body.(map[string]any)
	return len(m) > 0
}

// checkPageSort reports every id of a page_sort given in body that is not a record of db.
func (s *Service) checkPageSort(ctx context.Context, tx *store.Tx, db string, ids []string, body any) error {
	if m, _ := body.(map[string]any); m["page_sort"] == nil || len(ids) == 0 {
		return nil
	}
	missing, err := tx.MissingRecords(ctx, db, ids)
	if err != nil || len(missing) == 0 {
		return err
	}
	gone := make(map[string]bool, len(missing))
	for _, id := range missing {
		gone[id] = true
	}
	var pr quire.Problems
	for i, id := range ids {
		if gone[id] {
			pr.Add("page_sort["+strconv.Itoa(i)+"]", quire.ReasonInvalidValue, "Record "+id+" is not a record of this database.")
		}
	}
	return pr.Err()
}
