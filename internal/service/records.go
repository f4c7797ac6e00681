package service

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// recordDB is a database as its records' writes need it.
type recordDB struct {
	node   *quire.Node
	schema quire.Schema
	// related caches the schemas of databases that dual relations sync into.
	related map[string]*recordDB
	// people are the users the transaction has looked up (true: of the workspace): a batch's
	// records usually name the same few, which are then read once, not once per record.
	people map[string]bool
}

// lockDatabase takes database id's row lock and reads it for writing its records: a record's
// number comes from the database's last one, so writes to one database's records go one at
// a time.
func (s *Service) lockDatabase(ctx context.Context, tx *store.Tx, p *quire.Principal, id, path string) (*recordDB, error) {
	// A workspace-scoped token reaches every node of its workspace, which the read of the
	// database checks: one statement fewer.
	if !p.Token.WorkspaceScoped {
		if err := s.reachTx(ctx, tx, p, id, "database "+id); err != nil {
			return nil, err
		}
	}
	n, err := lockRecordDatabases(ctx, tx, p.WorkspaceID(), id)
	if err != nil {
		return nil, err
	}
	return writableDatabase(n, id, path)
}

// writableDatabase is database id, read as n (nil when absent) under its lock, for writing its
// records: not found unless it is a database, refused while in trash.
func writableDatabase(n *quire.Node, id, path string) (*recordDB, error) {
	if n == nil || n.Object != quire.ObjectDatabase {
		return nil, quire.NotFound("database " + id)
	}
	if n.Hidden() {
		return nil, quire.Invalid(path, quire.ReasonArchived, "The database is in trash; restore it first.")
	}
	schema, err := DatabaseSchema(n)
	if err != nil {
		return nil, err
	}
	return &recordDB{node: n, schema: schema, related: map[string]*recordDB{}}, nil
}

// lockRecordDatabases takes the row locks that writing records of database id needs: the
// database's and those of the databases its dual relations write into, in id order. Every
// writer of records takes them this way before any record's lock, so two writers syncing
// relations between the same databases in opposite directions never deadlock. also names
// further databases whose records the write changes (a move from one database into another),
// whose locks are taken in the same order. It returns node id as read once locked, or nil when
// ws has no such node.
func lockRecordDatabases(ctx context.Context, tx *store.Tx, ws, id string, also ...string) (*quire.Node, error) {
	ids := append([]string{id}, also...)
	for _, db := range ids[:1+len(also)] {
		n, err := tx.Node(ctx, ws, db)
		if err != nil && !quire.IsCode(err, quire.CodeNotFound) {
			return nil, err
		}
		if err != nil || n.Object != quire.ObjectDatabase {
			continue
		}
		if schema, err := DatabaseSchema(n); err == nil {
			for _, q := range schema {
				if q.Type == quire.PropRelation && q.DualPropertyID != "" {
					ids = append(ids, q.RelationDatabaseID)
				}
			}
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var locked *quire.Node
	for _, x := range ids {
		if x != id {
			if err := tx.LockNode(ctx, x); err != nil {
				return nil, err
			}
			continue
		}
		n, err := tx.LockedNode(ctx, ws, id)
		if err != nil && !quire.IsCode(err, quire.CodeNotFound) {
			return nil, err
		}
		locked = n
	}
	return locked, nil
}

// createRecord stores a new record of db with values vals, decoded from path (and content
// blocks), its record_values rows and its number, and syncs dual relations. form is what vals
// store as, when the caller built it already (formOf), else nil.
func (s *Service) createRecord(ctx context.Context, tx *store.Tx, w *recordWrites, p *quire.Principal, db *recordDB, vals properties.Values, form *recordForm, path string, children []*blocks.Block, icon, cover json.RawMessage, now int64) (*quire.Node, error) {
	if err := s.checkRefs(ctx, tx, p, db, vals, nil, path); err != nil {
		return nil, err
	}
	if form == nil {
		form = formOf(db.schema, vals)
	}
	n := &quire.Node{
		ID: quire.NewID(), WorkspaceID: p.WorkspaceID(), Object: quire.ObjectPage, PageType: quire.PageTypePage,
		ParentType: quire.ParentDatabase, ParentID: db.node.ID, Position: "a",
		Title: form.title, TitlePlain: form.titlePlain, Properties: form.stored,
		Description: []byte(`[]`), Icon: icon, Cover: cover, Version: 1,
		CreatedMs: now, CreatedBy: p.Token.OwnerID, EditedMs: now, EditedBy: p.Token.OwnerID,
	}
	// Uploads named by the icon, cover or content: complete and of this workspace.
	var refs fileRefs
	refs.icon(&n.Icon, strings.TrimSuffix(path, "properties")+"icon")
	refs.icon(&n.Cover, strings.TrimSuffix(path, "properties")+"cover")
	refs.blocks(children, strings.TrimSuffix(path, "properties")+"children")
	// Content blocks and file uses are written now, after the node's row.
	if err := w.insertNode(ctx, n, len(children) == 0 && len(refs.ids) == 0); err != nil {
		return nil, err
	}
	recordNode(tx, p, "created", n, quire.EventData{})
	if err := refs.use(ctx, tx, p.WorkspaceID(), n.ID); err != nil {
		return nil, err
	}
	rows := func(number int64) []store.RecordValue {
		f := float64(number)
		rows := append(make([]store.RecordValue, 0, 1+len(form.rows)+1), store.RecordValue{PropertyID: store.NumberProperty, Num: &f})
		rows = append(rows, form.rows...)
		for _, q := range db.schema {
			if q.Type == quire.PropUniqueID { // the one row that shows the number, unknown to formOf
				rows = append(rows, rowsOf(properties.PropertyScalars(q, vals, number))...)
			}
		}
		return rows
	}
	if err := w.insertNumbered(ctx, n.ID, rows); err != nil {
		return nil, err
	}
	if err := s.syncRelations(ctx, tx, p, db, n.ID, nil, vals, now); err != nil {
		return nil, err
	}
	if _, err := s.insertTree(ctx, tx, p, n, n.ID, children, Placement{}, now); err != nil {
		return nil, err
	}
	return n, nil
}

// updateRecord applies raw properties at path to record n of db.
func (s *Service) updateRecord(ctx context.Context, tx *store.Tx, w *recordWrites, p *quire.Principal, db *recordDB, n *quire.Node, raw any, path string, now int64) error {
	before, err := properties.UnmarshalValues(n.Properties)
	if err != nil {
		return err
	}
	before = before.Conform(db.schema)
	after, err := properties.DecodeValues(db.schema, raw, path, before)
	if err != nil {
		return err
	}
	if err := s.checkRefs(ctx, tx, p, db, after, before, path); err != nil {
		return err
	}
	title := after.Title(db.schema)
	n.Title, n.TitlePlain = recordTitle(title), title.PlainText()
	n.Properties = properties.MarshalValues(after)
	n.EditedMs, n.EditedBy = now, p.Token.OwnerID
	if err := w.updateNode(ctx, n); err != nil {
		return err
	}
	// Only the rows of properties whose rows change are rewritten: each row is in three
	// indexes, and an update usually touches one or two properties of ten.
	for _, prop := range db.schema {
		was, is := properties.PropertyScalars(prop, before, 0), properties.PropertyScalars(prop, after, 0)
		if sameScalars(was, is) {
			continue
		}
		if err := w.replace(ctx, n.ID, prop.ID, rowsOf(was), rowsOf(is)); err != nil {
			return err
		}
	}
	recordNode(tx, p, "properties_updated", n, quire.EventData{PropertyIDs: changedProperties(db.schema, before, after)})
	return s.syncRelations(ctx, tx, p, db, n.ID, before, after, now)
}

// checkRefs checks the people and related pages that vals adds to before: people of the
// workspace, records of the relation's database.
func (s *Service) checkRefs(ctx context.Context, tx *store.Tx, p *quire.Principal, db *recordDB, vals, before properties.Values, path string) error {
	var pr quire.Problems
	for _, prop := range db.schema {
		if prop.Type != quire.PropPeople && prop.Type != quire.PropRelation {
			continue
		}
		added := addedIDs(vals[prop.ID].IDs, before[prop.ID].IDs)
		if len(added) == 0 {
			continue
		}
		at := jsonbody.Join(path, prop.Name, prop.Type)
		if prop.Type == quire.PropPeople {
			ok, err := db.knownPeople(ctx, tx, p.WorkspaceID(), added)
			if err != nil {
				return err
			}
			for _, id := range added {
				if !ok[id] {
					pr.Add(at, quire.ReasonInvalidValue, "No person "+id+" in this workspace.")
				}
			}
			continue
		}
		nodes, err := tx.Nodes(ctx, p.WorkspaceID(), added)
		if err != nil {
			return err
		}
		found := map[string]bool{}
		for _, r := range nodes {
			found[r.ID] = r.ParentType == quire.ParentDatabase && r.ParentID == prop.RelationDatabaseID
		}
		for _, id := range added {
			if !found[id] {
				pr.Add(at, quire.ReasonInvalidValue, "Page "+id+" is not a record of the related database.")
			}
		}
	}
	return pr.Err()
}

func addedIDs(now, before []string) []string {
	var out []string
	for _, id := range now {
		if !slices.Contains(before, id) {
			out = append(out, id)
		}
	}
	return out
}

// syncRelations keeps dual relations in step: for each dual relation of db whose value went
// from before to after on record id, the records added gain id in the synced property on
// their database, and the records removed lose it.
func (s *Service) syncRelations(ctx context.Context, tx *store.Tx, p *quire.Principal, db *recordDB, id string, before, after properties.Values, now int64) error {
	for _, prop := range db.schema {
		if prop.Type != quire.PropRelation || prop.DualPropertyID == "" {
			continue
		}
		was, is := before[prop.ID].IDs, after[prop.ID].IDs
		if prop.RelationDatabaseID != before[prop.ID].DatabaseID {
			was = nil
		}
		added, removed := addedIDs(is, was), addedIDs(was, is)
		if len(added)+len(removed) == 0 {
			continue
		}
		other, err := s.relatedDB(ctx, tx, p, db, prop.RelationDatabaseID)
		if err != nil {
			return err
		}
		synced := other.schema.ByID(prop.DualPropertyID)
		if synced == nil || synced.Type != quire.PropRelation || synced.RelationDatabaseID != db.node.ID {
			continue
		}
		for _, rid := range append(added, removed...) {
			if err := s.setRelated(ctx, tx, p, other, synced, rid, id, slices.Contains(added, rid), now); err != nil {
				return err
			}
		}
	}
	return nil
}

// relatedDB reads (once per request) the database a dual relation syncs into.
func (s *Service) relatedDB(ctx context.Context, tx *store.Tx, p *quire.Principal, db *recordDB, id string) (*recordDB, error) {
	if id == db.node.ID {
		return db, nil
	}
	if r, ok := db.related[id]; ok {
		return r, nil
	}
	if err := tx.LockNode(ctx, id); err != nil {
		return nil, err
	}
	n, err := tx.Node(ctx, p.WorkspaceID(), id)
	if err != nil {
		return nil, err
	}
	schema, err := DatabaseSchema(n)
	if err != nil {
		return nil, err
	}
	r := &recordDB{node: n, schema: schema, related: db.related}
	db.related[id] = r
	return r, nil
}

// setRelated adds (or removes) page id to the relation prop of record rid of db.
func (s *Service) setRelated(ctx context.Context, tx *store.Tx, p *quire.Principal, db *recordDB, prop *quire.Property, rid, id string, add bool, now int64) error {
	if err := tx.LockNode(ctx, rid); err != nil {
		return err
	}
	r, err := tx.Node(ctx, p.WorkspaceID(), rid)
	if quire.IsCode(err, quire.CodeNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	vals, err := properties.UnmarshalValues(r.Properties)
	if err != nil {
		return err
	}
	vals = vals.Conform(db.schema)
	v := vals[prop.ID]
	ids := slices.Clone(v.IDs)
	has := slices.Contains(ids, id)
	switch {
	case add && !has:
		ids = append(ids, id)
	case !add && has:
		ids = slices.DeleteFunc(ids, func(x string) bool { return x == id })
	default:
		return nil
	}
	if len(ids) == 0 {
		delete(vals, prop.ID)
	} else {
		vals[prop.ID] = properties.Value{Type: quire.PropRelation, IDs: ids, DatabaseID: prop.RelationDatabaseID}
	}
	r.Properties = properties.MarshalValues(vals)
	r.EditedMs, r.EditedBy = now, p.Token.OwnerID
	recordNode(tx, p, "properties_updated", r, quire.EventData{PropertyIDs: []string{prop.ID}})
	if err := tx.UpdateRecordNode(ctx, r); err != nil {
		return err
	}
	return tx.ReplacePropertyValues(ctx, db.node.ID, r.ID, prop.ID, rowsOf(properties.PropertyScalars(prop, vals, 0)))
}

// CreateRecord makes a record of database in.Parent.ID (POST /v2/pages with a database
// parent): properties checked against the schema, content blocks, in one transaction.
func (s *Service) CreateRecord(ctx context.Context, p *quire.Principal, in NewPage) (*quire.Node, error) {
	if in.PageType != quire.PageTypePage {
		return nil, quire.Invalid("page_type", quire.ReasonInvalidValue, "A database record is a page.")
	}
	var n *quire.Node
	err := s.store.InTx(ctx, func(tx *store.Tx) error {
		db, err := s.lockDatabase(ctx, tx, p, in.Parent.ID, in.Parent.idPath())
		if err != nil {
			if quire.IsCode(err, quire.CodeNotFound) {
				return quire.NotFound("parent " + in.Parent.ID)
			}
			return err
		}
		vals, err := newRecordValues(db.schema, in.Properties, "properties")
		if err != nil {
			return err
		}
		n, err = s.createRecord(ctx, tx, writesAtOnce(tx, db.node.ID), p, db, vals, nil, "properties", in.Children, in.Icon, in.Cover, quire.NowMillis())
		return err
	})
	if err != nil {
		return nil, err
	}
	return n, s.RenderRecords(ctx, []*quire.Node{n}, nil)
}

// patchRecord applies a PATCH /v2/pages/:id to record n (its row locked): properties against
// the schema, then the rest as for any page.
func (s *Service) patchRecordProperties(ctx context.Context, tx *store.Tx, p *quire.Principal, n *quire.Node, raw any) error {
	db, err := s.lockDatabase(ctx, tx, p, n.ParentID, "properties")
	if err != nil {
		return err
	}
	return s.updateRecord(ctx, tx, writesAtOnce(tx, db.node.ID), p, db, n, raw, "properties", quire.NowMillis())
}

// RenderRecords replaces the stored values of the records among nodes with their read shape
// (every property of the database's current schema, by name). nums, when given, holds the
// records' numbers; otherwise those that a unique_id property shows are read.
func (s *Service) RenderRecords(ctx context.Context, nodes []*quire.Node, nums map[string]int64) error {
	return s.renderRecords(ctx, nodes, nums, nil)
}

// renderRecords is RenderRecords showing only the properties keep allows (all when nil).
func (s *Service) renderRecords(ctx context.Context, nodes []*quire.Node, nums map[string]int64, keep func(*quire.Property) bool) error {
	renderers := map[string]*properties.Renderer{}
	var numbered []string // records whose database shows their number (a unique_id property)
	for _, n := range nodes {
		if n.ParentType != quire.ParentDatabase || n.Object != quire.ObjectPage {
			continue
		}
		r, ok := renderers[n.ParentID]
		if !ok {
			db, err := s.store.Node(ctx, n.WorkspaceID, n.ParentID)
			if err != nil {
				return err
			}
			schema, err := DatabaseSchema(db)
			if err != nil {
				return err
			}
			if keep != nil {
				schema = slices.DeleteFunc(slices.Clone(schema), func(q *quire.Property) bool { return !keep(q) })
			}
			r = properties.NewRenderer(schema)
			renderers[n.ParentID] = r
		}
		if r.ShowsNumber() {
			numbered = append(numbered, n.ID)
		}
	}
	if nums == nil && len(numbered) > 0 {
		// A record's GET, a search or a listing reads numbers only when a schema shows them:
		// one statement fewer for most databases, as a query already does.
		var err error
		if nums, err = s.store.RecordNumbers(ctx, numbered); err != nil {
			return err
		}
	}
	var buf []byte
	for _, n := range nodes {
		if n.ParentType != quire.ParentDatabase || n.Object != quire.ObjectPage {
			continue
		}
		var err error
		if buf, err = renderRecord(buf, n, renderers[n.ParentID], nums[n.ID]); err != nil {
			return err
		}
	}
	return nil
}

// renderIn replaces the stored values of records of one database with their read shape under
// schema, when the caller has the schema and the numbers already (a query, a mutation batch).
func renderIn(nodes []*quire.Node, schema quire.Schema, nums map[string]int64) error {
	return renderWith(nodes, properties.NewRenderer(schema), nums)
}

// renderWith is renderIn with a renderer of the schema made already.
func renderWith(nodes []*quire.Node, r *properties.Renderer, nums map[string]int64) error {
	var buf []byte
	for _, n := range nodes {
		if n.ParentType != quire.ParentDatabase || n.Object != quire.ObjectPage {
			continue
		}
		var err error
		if buf, err = renderRecord(buf, n, r, nums[n.ID]); err != nil {
			return err
		}
	}
	return nil
}

// shortRichText starts a rich text stored in the short form (properties.MarshalValues).
var shortRichText = []byte(`"r":[`)

// renderRecord renders record n's values with r at the end of buf, which it returns: the
// records of a page share one buffer rather than a hundred, each record's values a full slice
// of it (appending to one copies it).
func renderRecord(buf []byte, n *quire.Node, r *properties.Renderer, number int64) ([]byte, error) {
	if room := 4*len(n.Properties) + 512 + 1024*bytes.Count(n.Properties, shortRichText); cap(buf)-len(buf) < room {
		// The read shape is about twice the stored one (every annotation of a rich text, every
		// property by name), and the renderer writes it twice over (in the stored order, then
		// the schema's): room for this record and a few more, rather than grown byte by byte.
		// A rich text stored short reads as some 200 bytes more an item than it is stored.
		buf = make([]byte, 0, 8*room)
	}
	start := len(buf)
	buf, err := r.Append(buf, n.Properties, computed(n, number))
	if err != nil {
		return buf, err
	}
	n.Properties = buf[start:len(buf):len(buf)]
	return buf, nil
}

func computed(n *quire.Node, number int64) properties.Computed {
	return properties.Computed{CreatedMs: n.CreatedMs, CreatedBy: n.CreatedBy, EditedMs: n.EditedMs,
		EditedBy: n.EditedBy, UniqueNumber: number}
}

// PageProperty reads one property of a page: a record's by id (or name), or a page's title.
func (s *Service) PageProperty(ctx context.Context, p *quire.Principal, pageID, propID string) ([]byte, error) {
	n, err := s.Page(ctx, p, pageID)
	if err != nil {
		return nil, err
	}
	schema := quire.Schema{{ID: "title", Name: "title", Type: quire.PropTitle}}
	vals := properties.Values{}
	var number int64
	if n.ParentType == quire.ParentDatabase {
		db, err := s.store.Node(ctx, p.WorkspaceID(), n.ParentID)
		if err != nil {
			return nil, err
		}
		if schema, err = DatabaseSchema(db); err != nil {
			return nil, err
		}
		raw, err := s.store.Node(ctx, p.WorkspaceID(), n.ID) // Page rendered n's values
		if err != nil {
			return nil, err
		}
		if vals, err = properties.UnmarshalValues(raw.Properties); err != nil {
			return nil, err
		}
		nums, err := s.store.RecordNumbers(ctx, []string{n.ID})
		if err != nil {
			return nil, err
		}
		number = nums[n.ID]
	} else {
		rt, err := blocks.UnmarshalRichText(n.Title)
		if err != nil {
			return nil, err
		}
		if len(rt) > 0 {
			vals["title"] = properties.Value{Type: quire.PropTitle, RichText: rt}
		}
	}
	prop := schema.ByID(propID)
	if prop == nil {
		prop = schema.ByName(propID)
	}
	if prop == nil {
		return nil, quire.NotFound("property " + strconv.Quote(propID) + " of page " + pageID)
	}
	return properties.AppendPropertyItem(nil, prop, vals, computed(n, number)), nil
}

func sameScalars(a, b []properties.Scalar) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.PropertyID != y.PropertyID || x.Ord != y.Ord || (x.Text == nil) != (y.Text == nil) || (x.Num == nil) != (y.Num == nil) ||
			(x.Text != nil && *x.Text != *y.Text) || (x.Num != nil && *x.Num != *y.Num) {
			return false
		}
	}
	return true
}
