package service

import (
	"context"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// A page moved into a database becomes a record of it, and a record moved out of its database
// becomes a page. The node keeps its id, title, icon, cover, content blocks and sub-pages; only
// what makes a record changes: its property values (stored on the node and as record_values
// rows) and its number. The search index needs nothing: it holds titles and blocks, which stay.

// convertForMove makes node n (its row and its databases' locked) what a node under to is: it
// leaves the database it is a record of unless to is that database, and joins to when to is a
// database. Within one database nothing changes.
func (s *Service) convertForMove(ctx context.Context, tx *store.Tx, p *quire.Principal, n *quire.Node, to Parent, now int64) error {
	wasRecord := n.ParentType == quire.ParentDatabase
	if wasRecord && to.Type == quire.ParentDatabase && to.ID == n.ParentID {
		return nil
	}
	if wasRecord {
		if err := s.leaveDatabase(ctx, tx, p, n, now); err != nil {
			return err
		}
	}
	if to.Type == quire.ParentDatabase {
		return s.joinDatabase(ctx, tx, p, n, to)
	}
	return nil
}

// leaveDatabase drops record n's property values, its rows and its number: the original service
// says only that the record becomes a page, and a page has no properties but its title (kept).
// The records that dual relations synced n into lose it, as when the value is cleared.
func (s *Service) leaveDatabase(ctx context.Context, tx *store.Tx, p *quire.Principal, n *quire.Node, now int64) error {
	// The database's lock is held (the move's prelude); it is read without a reach check: a
	// token granted only the record still moves it out.
	dbNode, err := tx.Node(ctx, p.WorkspaceID(), n.ParentID)
	if err != nil {
		return err
	}
	schema, err := DatabaseSchema(dbNode)
	if err != nil {
		return err
	}
	db := &recordDB{node: dbNode, schema: schema, related: map[string]*recordDB{}}
	vals, err := properties.UnmarshalValues(n.Properties)
	if err != nil {
		return err
	}
	if err := s.syncRelations(ctx, tx, p, db, n.ID, vals.Conform(schema), properties.Values{}, now); err != nil {
		return err
	}
	if err := tx.DeleteRecordValues(ctx, n.ID); err != nil {
		return err
	}
	// A dual relation of the database with itself may have rewritten n's own row just now.
	cur, err := tx.Node(ctx, p.WorkspaceID(), n.ID)
	if err != nil {
		return err
	}
	// A page's title is answered as stored: a record's short form is written out in full.
	title, err := blocks.LongRichText(cur.Title)
	if err != nil {
		return err
	}
	n.Version, n.Properties, n.Title = cur.Version, []byte(`{}`), title
	return nil
}

// joinDatabase makes page n a record of database to: its title becomes the title property's
// value, every other property starts empty (computed ones, such as created_time, read from
// the node), and it gets the database's next number.
func (s *Service) joinDatabase(ctx context.Context, tx *store.Tx, p *quire.Principal, n *quire.Node, to Parent) error {
	db, err := s.lockDatabase(ctx, tx, p, to.ID, to.idPath())
	if err != nil {
		if quire.IsCode(err, quire.CodeNotFound) {
			return quire.NotFound("parent " + to.ID)
		}
		return err
	}
	title, err := blocks.UnmarshalRichText(n.Title)
	if err != nil {
		return err
	}
	vals := properties.Values{}
	if t := db.schema.Title(); t != nil && len(title) > 0 {
		vals[t.ID] = properties.Value{Type: quire.PropTitle, RichText: title}
	}
	n.Properties = properties.MarshalValues(vals)
	number, err := tx.NextRecordNumber(ctx, db.node.ID)
	if err != nil {
		return err
	}
	f := float64(number)
	rows := append([]store.RecordValue{{PropertyID: store.NumberProperty, Num: &f}},
		rowsOf(properties.Scalars(db.schema, vals, number))...)
	return tx.InsertRecordValues(ctx, db.node.ID, n.ID, rows)
}
