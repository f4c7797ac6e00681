package service

import (
	"context"
	"encoding/json"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// NewDatabase is a validated POST /v2/databases body.
type NewDatabase struct {
	Parent      Parent
	Title       blocks.RichText
	Description blocks.RichText
	IsInline    bool
	Icon, Cover json.RawMessage
	Schema      quire.Schema
}

// DatabasePatch is a validated PATCH /v2/databases/:id body; nil fields are left alone.
type DatabasePatch struct {
	Title       *blocks.RichText
	Description *blocks.RichText
	IsInline    *bool
	Icon, Cover *json.RawMessage
	InTrash     *bool
	// Properties is the raw `properties` object, applied to the current schema in the
	// transaction (properties.ApplySchemaPatch); nil when absent.
	Properties json.RawMessage
	IfMatch    string
}

// DecodeNewDatabase validates a POST /v2/databases body, reporting every problem with its path.
func DecodeNewDatabase(raw []byte) (NewDatabase, error) {
	body, members, err := jsonbody.ParseMembers(raw)
	if err != nil {
		return NewDatabase{}, err
	}
	var p quire.Problems
	var out NewDatabase
	NewDatabaseBody.Unknown(&p, body)
	out.Parent = DecodeParent(&p, "parent", body["parent"])
	if out.Parent.Type == quire.ParentDatabase {
		p.Add("parent.type", quire.ReasonInvalidValue, "A database goes under a page or the workspace.")
	}
	if v, ok := body["title"]; ok && v != nil {
		out.Title = blocks.DecodeRichText(&p, "title", v)
	}
	if v, ok := body["description"]; ok && v != nil {
		out.Description = blocks.DecodeRichText(&p, "description", v)
	}
	if v, ok := body["is_inline"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			p.Add("is_inline", quire.ReasonInvalidType, "is_inline must be a boolean.")
		}
		out.IsInline = b
	}
	out.Icon = decodeIcon(&p, "icon", body, true)
	out.Cover = decodeIcon(&p, "cover", body, false)
	if rawProps, ok := members["properties"]; !ok || body["properties"] == nil {
		p.Add("properties", quire.ReasonRequired, "A database needs properties, with exactly one title property.")
	} else if s, err := properties.DecodeSchema(rawProps, "properties"); err != nil {
		mergeProblems(&p, err)
	} else {
		out.Schema = s
	}
	return out, p.Err()
}

// DecodeDatabasePatch validates a PATCH /v2/databases/:id body; the properties are checked
// against the schema when the patch is applied.
func DecodeDatabasePatch(raw []byte) (DatabasePatch, error) {
	body, members, err := jsonbody.ParseMembers(raw)
	if err != nil {
		return DatabasePatch{}, err
	}
	var p quire.Problems
	var out DatabasePatch
	for _, k := range jsonbody.SortedKeys(body) {
		if !DatabasePatchBody.Takes(&p, k) {
			continue
		}
		v := body[k]
		switch k {
		case "title", "description":
			rt := blocks.RichText{}
			if v != nil {
				rt = blocks.DecodeRichText(&p, k, v)
			}
			if k == "title" {
				out.Title = &rt
			} else {
				out.Description = &rt
			}
		case "icon", "cover":
			ic := decodeIcon(&p, k, body, k == "icon")
			if k == "icon" {
				out.Icon = &ic
			} else {
				out.Cover = &ic
			}
		case "is_inline", "in_trash", "archived":
			b, ok := v.(bool)
			if !ok {
				p.Add(k, quire.ReasonInvalidType, k+" must be a boolean.")
				continue
			}
			if k == "is_inline" {
				out.IsInline = &b
			} else {
				out.InTrash = &b
			}
		case "properties":
			if _, ok := v.(map[string]any); !ok {
				p.Add(k, quire.ReasonInvalidType, "properties must be an object.")
				continue
			}
			out.Properties = members[k]
		}
	}
	return out, p.Err()
}

// Database returns a database the caller reaches (trashed ones too), or not_found.
func (s *Service) Database(ctx context.Context, p *quire.Principal, id string) (*quire.Node, error) {
	return s.readNode(ctx, p, id, "database", isDatabase)
}

// DatabaseSchema reads a database node's schema.
func DatabaseSchema(n *quire.Node) (quire.Schema, error) {
	return properties.UnmarshalSchema(n.Properties)
}

// CreateDatabase makes a database under a page (or the workspace), with a child_database
// block in its parent page and, for each dual relation, the synced property on the related
// database, in one transaction.
func (s *Service) CreateDatabase(ctx context.Context, p *quire.Principal, in NewDatabase) (*quire.Node, error) {
	now := quire.NowMillis()
	stored, err := properties.MarshalSchema(in.Schema)
	if err != nil {
		return nil, err
	}
	n := &quire.Node{
		ID: quire.NewID(), WorkspaceID: p.WorkspaceID(), Object: quire.ObjectDatabase, PageType: quire.PageTypeDatabase,
		ParentType: in.Parent.Type, ParentID: in.Parent.ID, Title: marshalRichText(in.Title),
		TitlePlain: in.Title.PlainText(), Properties: stored, Description: marshalRichText(in.Description),
		Icon: in.Icon, Cover: in.Cover, IsInline: in.IsInline, Version: 1,
		CreatedMs: now, CreatedBy: p.Token.OwnerID, EditedMs: now, EditedBy: p.Token.OwnerID,
	}
	err = s.store.InTx(ctx, func(tx *store.Tx) error {
		parent, err := s.placeUnder(ctx, tx, p, in.Parent)
		if err != nil {
			return err
		}
		if parent != nil && parent.Object != quire.ObjectPage {
			return quire.Invalid(in.Parent.idPath(), quire.ReasonInvalidValue, "A database goes under a page.")
		}
		if err := s.placeLast(ctx, tx, p, n, parent); err != nil {
			return err
		}
		schema := in.Schema
		if err := s.linkRelations(ctx, tx, p, n, &schema, properties.Relations(schema, "properties")); err != nil {
			return err
		}
		if n.Properties, err = properties.MarshalSchema(schema); err != nil {
			return err
		}
		var refs fileRefs
		refs.icon(&n.Icon, "icon")
		refs.icon(&n.Cover, "cover")
		if err := tx.InsertNode(ctx, n); err != nil {
			return err
		}
		recordNode(tx, p, "created", n, quire.EventData{})
		return refs.use(ctx, tx, p.WorkspaceID(), n.ID)
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// relationTarget is database id if the caller reaches it and it is not in trash, else nil.
func (s *Service) relationTarget(ctx context.Context, tx *store.Tx, p *quire.Principal, id string) (*quire.Node, error) {
	if err := s.reachTx(ctx, tx, p, id, "database "+id); err != nil {
		if quire.IsCode(err, quire.CodeNotFound) {
			return nil, nil
		}
		return nil, err
	}
	if err := tx.LockNode(ctx, id); err != nil {
		return nil, err
	}
	n, err := tx.Node(ctx, p.WorkspaceID(), id)
	if quire.IsCode(err, quire.CodeNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if n.Object != quire.ObjectDatabase || n.Hidden() {
		return nil, nil
	}
	return n, nil
}

// storeSchema writes schema as database n's, as an edit of n.
func (s *Service) storeSchema(ctx context.Context, tx *store.Tx, p *quire.Principal, n *quire.Node, schema quire.Schema) error {
	stored, err := properties.MarshalSchema(schema)
	if err != nil {
		return err
	}
	n.Properties = stored
	n.EditedMs, n.EditedBy = quire.NowMillis(), p.Token.OwnerID
	recordNode(tx, p, "schema_updated", n, quire.EventData{})
	return tx.UpdateNode(ctx, n)
}

// uniqueName is name, or name with " 2", " 3" … when schema already has a property so named.
func uniqueName(schema quire.Schema, name string) string {
	if schema.ByName(name) == nil {
		return name
	}
	for i := int64(2); ; i++ {
		if n := name + " " + itoa(i); schema.ByName(n) == nil {
			return n
		}
	}
}

// PatchDatabase changes a database's title, description, inline flag, icon, cover, schema or
// trash state. A schema change brings the records' record_values rows along in the same
// transaction: removed properties lose their rows (and their values read as gone at once),
// retyped ones and ones whose options changed are reindexed record by record in batches.
func (s *Service) PatchDatabase(ctx context.Context, p *quire.Principal, id string, patch DatabasePatch) (*quire.Node, error) {
	restoring := patch.InTrash != nil && !*patch.InTrash
	change := patch.Title != nil || patch.Description != nil || patch.IsInline != nil || patch.Icon != nil ||
		patch.Cover != nil || patch.Properties != nil
	w := nodeWrite{id: id, kind: "database", is: isDatabase, ifMatch: patch.IfMatch, lockTree: patch.InTrash != nil,
		check: func(n *quire.Node) error {
			if n.Hidden() && change && !restoring {
				return quire.Invalid("in_trash", quire.ReasonArchived, "The database is in trash; restore it with in_trash false first.")
			}
			return nil
		}}
	return s.writeNode(ctx, p, w, func(tx *store.Tx, n *quire.Node) error {
		if patch.Title != nil {
			n.Title, n.TitlePlain = marshalRichText(*patch.Title), patch.Title.PlainText()
		}
		if patch.Description != nil {
			n.Description = marshalRichText(*patch.Description)
		}
		if patch.IsInline != nil {
			n.IsInline = *patch.IsInline
		}
		if err := setIcons(ctx, tx, p.WorkspaceID(), n, patch.Icon, patch.Cover); err != nil {
			return err
		}
		if patch.Properties != nil {
			if err := s.patchSchema(ctx, tx, p, n, patch.Properties); err != nil {
				return err
			}
		}
		recordFields(tx, p, n, patch.eventFields())
		return saveNode(ctx, tx, p, n, patch.InTrash, patch.Title != nil)
	})
}

// TrashDatabase puts a database in trash (DELETE); its records stay, hidden with it.
func (s *Service) TrashDatabase(ctx context.Context, p *quire.Principal, id string) (*quire.Node, error) {
	yes := true
	return s.PatchDatabase(ctx, p, id, DatabasePatch{InTrash: &yes})
}

// patchSchema applies a properties patch to database n (whose row the caller holds) and
// brings record_values, related databases and synced properties along.
func (s *Service) patchSchema(ctx context.Context, tx *store.Tx, p *quire.Principal, n *quire.Node, raw json.RawMessage) error {
	current, err := DatabaseSchema(n)
	if err != nil {
		return err
	}
	next, ch, err := properties.ApplySchemaPatch(current, raw, "properties")
	if err != nil {
		return err
	}
	recordNode(tx, p, "schema_updated", n, quire.EventData{PropertyIDs: schemaChanged(ch)})
	// Partners on other databases of dual relations that ended become single relations;
	// on this database, they are changed in next before it is stored.
	for _, ref := range ch.Unsynced {
		if ref.DatabaseID == n.ID {
			if q := next.ByID(ref.PropertyID); q != nil {
				q.DualPropertyID = ""
			}
			continue
		}
		other, err := s.relationTarget(ctx, tx, p, ref.DatabaseID)
		if err != nil || other == nil {
			if err != nil {
				return err
			}
			continue
		}
		os, err := DatabaseSchema(other)
		if err != nil {
			return err
		}
		if q := os.ByID(ref.PropertyID); q != nil && q.Type == quire.PropRelation {
			q.DualPropertyID = ""
			if err := s.storeSchema(ctx, tx, p, other, os); err != nil {
				return err
			}
		}
	}
	if err := s.linkRelations(ctx, tx, p, n, &next, ch.Relations); err != nil {
		return err
	}
	if n.Properties, err = properties.MarshalSchema(next); err != nil {
		return err
	}
	for _, id := range ch.Removed {
		if err := tx.DropPropertyValues(ctx, n.ID, id); err != nil {
			return err
		}
	}
	for _, id := range ch.Added {
		if next.ByID(id).Type == quire.PropUniqueID {
			if err := tx.CopyRecordNumbers(ctx, n.ID, id); err != nil {
				return err
			}
		}
	}
	return s.reindex(ctx, tx, n.WorkspaceID, n.ID, next, ch.Reindex)
}

// linkRelations checks each relation target (a database the caller reaches, not in trash)
// and gives each dual relation its synced property on the related database. A relation to
// database db itself gets its synced property in schema, which the caller stores.
func (s *Service) linkRelations(ctx context.Context, tx *store.Tx, p *quire.Principal, db *quire.Node, schema *quire.Schema, targets []properties.RelationTarget) error {
	var pr quire.Problems
	for _, t := range targets {
		prop := schema.ByID(t.PropertyID)
		if t.DatabaseID == db.ID {
			if t.SyncedPropertyID != "" && schema.ByID(t.SyncedPropertyID) == nil {
				name := uniqueName(*schema, "Related to "+db.TitlePlain+" ("+prop.Name+")")
				*schema = append(*schema, properties.SyncedProperty(db.ID, prop, name))
			}
			continue
		}
		target, err := s.relationTarget(ctx, tx, p, t.DatabaseID)
		if err != nil {
			return err
		}
		if target == nil {
			pr.Add(t.Path, quire.ReasonInvalidValue, "database_id must name a database the integration reaches, not in trash.")
			continue
		}
		if t.SyncedPropertyID == "" {
			continue
		}
		ts, err := DatabaseSchema(target)
		if err != nil {
			return err
		}
		if ts.ByID(t.SyncedPropertyID) != nil {
			continue
		}
		name := uniqueName(ts, "Related to "+db.TitlePlain+" ("+prop.Name+")")
		ts = append(ts, properties.SyncedProperty(db.ID, prop, name))
		if err := s.storeSchema(ctx, tx, p, target, ts); err != nil {
			return err
		}
	}
	return pr.Err()
}

// recordBatch is how many records a walk over a database's records (a schema change's reindex,
// an export) reads at a time, by id (a variable for the tests).
var recordBatch = 500

// reindex rewrites the record_values rows of properties ids for every record of database db of
// workspace ws, in batches of records read by id (store.RecordIDs).
func (s *Service) reindex(ctx context.Context, tx *store.Tx, ws, db string, schema quire.Schema, ids []string) error {
	var props []*quire.Property
	for _, id := range ids {
		q := schema.ByID(id)
		if q == nil {
			continue
		}
		if kept, err := tx.IsIndexed(ctx, db, id); err != nil || !kept {
			if err != nil {
				return err
			}
			continue // no rows to rewrite (store/records_indexed.go)
		}
		if q.Type == quire.PropUniqueID {
			if err := tx.DropPropertyValues(ctx, db, id); err != nil {
				return err
			}
			if err := tx.CopyRecordNumbers(ctx, db, id); err != nil {
				return err
			}
			continue
		}
		props = append(props, q)
	}
	if len(props) == 0 {
		return nil
	}
	all, err := tx.RecordIDs(ctx, db)
	if err != nil {
		return err
	}
	for start := 0; start < len(all); start += recordBatch {
		recs, err := tx.RecordsIn(ctx, ws, db, all[start:min(start+recordBatch, len(all))])
		if err != nil {
			return err
		}
		for _, r := range recs {
			vals, err := properties.UnmarshalValues(r.Properties)
			if err != nil {
				return err
			}
			for _, q := range props {
				if err := tx.ReplacePropertyValues(ctx, db, r.ID, q.ID, rowsOf(properties.PropertyScalars(q, vals, 0))); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func rowsOf(sc []properties.Scalar) []store.RecordValue {
	out := make([]store.RecordValue, len(sc))
	for i, v := range sc {
		out[i] = store.RecordValue(v)
	}
	return out
}
