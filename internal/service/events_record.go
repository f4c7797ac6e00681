package service

import (
	"context"

	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// The write paths call these recorders inside their transaction, one line each; the store
// writes the outbox at commit (store/events.go).

// recordNode records that node n (a page, record, folder, mind map page or database) had
// what happen to it: "created", "properties_updated", "content_updated", "moved", "deleted",
// "restored", or "schema_updated" for a database.
func recordNode(tx *store.Tx, p *quire.Principal, what string, n *quire.Node, data quire.EventData) {
	entity := quire.EventEntityPage
	if n.Object == quire.ObjectDatabase {
		entity = quire.EventEntityDatabase
	}
	tx.Record(newEvent(p, entity+"."+what, entity, n.ID, n.ParentType, n.ParentID, n.ID, data))
}

// recordContent records page.content_updated of page pageID with the blocks written.
func recordContent(tx *store.Tx, p *quire.Principal, page *quire.Node, blockIDs ...string) {
	recordNode(tx, p, "content_updated", page, quire.EventData{BlockIDs: blockIDs})
}

// recordTrash records page.deleted or page.restored (database.… for a database) when inTrash
// changes n's trash state; n is as it was before the change.
func recordTrash(tx *store.Tx, p *quire.Principal, n *quire.Node, inTrash *bool) {
	switch {
	case inTrash == nil || *inTrash == n.InTrash:
	case *inTrash:
		recordNode(tx, p, "deleted", n, quire.EventData{})
	default:
		recordNode(tx, p, "restored", n, quire.EventData{})
	}
}

// recordMove records page.moved (or database.moved) of n from one parent to another.
func recordMove(tx *store.Tx, p *quire.Principal, n *quire.Node, fromType, fromID string) {
	recordNode(tx, p, "moved", n, quire.EventData{From: &quire.EventParent{Type: fromType, ID: fromID},
		To: &quire.EventParent{Type: n.ParentType, ID: n.ParentID}})
}

// recordMindMap records mind_map.updated of mind map page n.
func recordMindMap(tx *store.Tx, p *quire.Principal, n *quire.Node) {
	tx.Record(newEvent(p, quire.EventMindMapUpdated, quire.EventEntityMindMap, n.ID, n.ParentType, n.ParentID, n.ID, quire.EventData{}))
}

// recordView records view.created, view.updated or view.deleted of view v.
func recordView(tx *store.Tx, p *quire.Principal, typ string, v *quire.View) {
	tx.Record(newEvent(p, typ, quire.EventEntityView, v.ID, quire.ParentDatabase, v.DatabaseID, v.DatabaseID, quire.EventData{}))
}

// recordUpload records file_upload.completed of upload f. Its bytes come through a signed URL
// without a token: the upload's own token is its author.
func recordUpload(tx *store.Tx, f *quire.File) {
	ev := newEvent(nil, quire.EventFileUploadCompleted, quire.EventEntityFileUpload, f.ID, "", "", f.ParentID, quire.EventData{})
	ev.WorkspaceID, ev.BotID = f.WorkspaceID, f.TokenID
	if f.ParentID != "" {
		ev.ParentType, ev.ParentID = quire.ParentPage, f.ParentID
	}
	tx.Record(ev)
}

func newEvent(p *quire.Principal, typ, entity, id, parentType, parentID, reach string, data quire.EventData) quire.Event {
	ev := quire.Event{ID: quire.NewID(), Type: typ, EntityType: entity, EntityID: id,
		ParentType: parentType, ParentID: parentID, ReachID: reach, Data: data}
	if p != nil {
		ev.WorkspaceID, ev.UserID, ev.BotID = p.WorkspaceID(), p.Token.OwnerID, p.Token.ID
	}
	return ev
}

// recordFields records properties_updated of n naming the fields a PATCH set, if any.
func recordFields(tx *store.Tx, p *quire.Principal, n *quire.Node, fields []string) {
	if len(fields) > 0 {
		recordNode(tx, p, "properties_updated", n, quire.EventData{Fields: fields})
	}
}

// eventFields names the fields of a page PATCH that change the page itself (a record's
// properties are recorded by updateRecord, trash by saveNode).
func (pt *PagePatch) eventFields() []string {
	return setFields([]string{"title", "icon", "cover"}, pt.Title != nil, pt.Icon != nil, pt.Cover != nil)
}

// eventFields names the fields of a database PATCH besides its schema and trash state.
func (pt *DatabasePatch) eventFields() []string {
	return setFields([]string{"title", "description", "is_inline", "icon", "cover"},
		pt.Title != nil, pt.Description != nil, pt.IsInline != nil, pt.Icon != nil, pt.Cover != nil)
}

// setFields returns the names whose field is set (set[i] for names[i]).
func setFields(names []string, set ...bool) []string {
	var out []string
	for i, name := range names {
		if set[i] {
			out = append(out, name)
		}
	}
	return out
}

// schemaChanged lists the properties a schema patch added, removed, renamed or changed.
func schemaChanged(ch properties.SchemaChanges) []string {
	var d quire.EventData
	for _, ids := range [][]string{ch.Added, ch.Removed, ch.Renamed, ch.Retyped, ch.Reindex} {
		d.Merge(quire.EventData{PropertyIDs: ids})
	}
	return d.PropertyIDs
}

// changedProperties lists the properties of schema whose values differ between before and after.
func changedProperties(schema quire.Schema, before, after properties.Values) []string {
	var out []string
	for _, prop := range schema {
		if !sameScalars(properties.PropertyScalars(prop, before, 0), properties.PropertyScalars(prop, after, 0)) {
			out = append(out, prop.ID)
		}
	}
	return out
}

func blockIDs(bs []*quire.Block) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.ID
	}
	return out
}

// viewEvent is the type of a PATCH of view v (as read) that sets inTrash.
func viewEvent(v *quire.View, inTrash *bool) string {
	if inTrash != nil && *inTrash && !v.InTrash {
		return quire.EventViewDeleted
	}
	return quire.EventViewUpdated
}

// finishUpload moves upload f from uploading to status and, when its bytes are stored,
// records file_upload.completed in the same transaction. ok is false when the upload is no
// longer uploading (the sweep expired it meanwhile).
func (s *Service) finishUpload(ctx context.Context, f *quire.File, status string, size int64) (ok bool, err error) {
	err = s.store.InTx(ctx, func(tx *store.Tx) error {
		if ok, err = tx.FinishUpload(ctx, f.ID, status, size, quire.NowMillis()); ok && status == quire.FileUploaded {
			recordUpload(tx, f)
		}
		return err
	})
	return ok, err
}
