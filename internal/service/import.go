package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/mindmap"
	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/views"
)

// An import restores content exported by package transfer with its own ids, so that links,
// mentions and relations between the exported pages keep pointing where they did. Everything
// arrives in stored form and is decoded and validated here as a write would be; one node (a
// page with its content, a database with its views, a record, a mind map) is one transaction.

// StoredBlock is one content block in stored form with its id and nested children. A
// child_page or child_database block only holds its place: the child node brings its own.
type StoredBlock struct {
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	Content  json.RawMessage `json:"content,omitempty"`
	Children []*StoredBlock  `json:"children,omitempty"`
	// Position is set by the caller on top-level blocks (and on the node restored later for
	// a child_page) so that both transactions agree; nested ones are numbered here.
	Position string `json:"-"`
}

// RestoredNode is one node to restore, in stored form.
type RestoredNode struct {
	Node *quire.Node // ID, Object, PageType, ParentType, ParentID, Title, Properties, Description, Icon, Cover, IsInline, times
	// Position among the parent's children; "" appends (under the workspace or a page), and a
	// record always takes the database's record position.
	Position string
	Blocks   []*StoredBlock
	MindMap  *mindmap.New  // a mind map's tree with its node ids
	Views    []*quire.View // a database's views: ID, Name, Type, Spec
	Number   int64         // a record's number (unique_id); 0 takes the next one
}

// IsTransferMarker reports whether a block type only holds a child node's place.
func IsTransferMarker(typ string) bool { return typ == "child_page" || typ == "child_database" }

// RestoreNode writes one exported node with its ids. A node that is already in the workspace
// is left as it is and reported with restored false, so that an interrupted import is re-run
// from the start. Its parent must already be there.
func (s *Service) RestoreNode(ctx context.Context, p *quire.Principal, in RestoredNode) (restored bool, err error) {
	n := *in.Node
	n.WorkspaceID, n.Version, n.InTrash, n.TrashedUnder = p.WorkspaceID(), 1, false, false
	if !quire.ValidID(n.ID) {
		return false, quire.Invalid("id", quire.ReasonInvalidValue, "An imported node needs a valid id.")
	}
	content, err := decodeStoredTree(in.Blocks, "blocks")
	if err != nil {
		return false, err
	}
	if err := s.checkStoredNode(&n); err != nil {
		return false, err
	}
	err = s.store.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Node(ctx, n.WorkspaceID, n.ID); err == nil {
			return nil // restored by an earlier run
		} else if !quire.IsCode(err, quire.CodeNotFound) {
			return err
		}
		if err := s.placeRestored(ctx, tx, p, &n, in.Position); err != nil {
			return err
		}
		var refs fileRefs
		refs.icon(&n.Icon, "icon")
		refs.icon(&n.Cover, "cover")
		refs.blocks(content, "blocks")
		if err := tx.InsertNode(ctx, &n); err != nil {
			return fmt.Errorf("node %s (is the id taken in another workspace?): %w", n.ID, err)
		}
		if err := refs.use(ctx, tx, n.WorkspaceID, n.ID); err != nil {
			return err
		}
		if err := s.restoreBody(ctx, tx, &n, in); err != nil {
			return err
		}
		restored = true
		return s.insertStored(ctx, tx, &n, n.ID, in.Blocks, content)
	})
	return restored, err
}

// checkStoredNode validates the stored JSON of a node as its kind reads it, and writes it
// back in canonical form (an export is indented; what is stored never is).
func (s *Service) checkStoredNode(n *quire.Node) error {
	title, err := blocks.UnmarshalRichText(n.Title)
	if err != nil {
		return quire.Invalid("title", quire.ReasonInvalidValue, "The title is not stored rich text.")
	}
	n.Title, n.TitlePlain = marshalRichText(title), title.PlainText()
	if len(n.Description) == 0 {
		n.Description = []byte(`[]`)
	}
	desc, err := blocks.UnmarshalRichText(n.Description)
	if err != nil {
		return quire.Invalid("description", quire.ReasonInvalidValue, "The description is not stored rich text.")
	}
	n.Description = marshalRichText(desc)
	for _, raw := range []*json.RawMessage{&n.Icon, &n.Cover} {
		var b bytes.Buffer
		if len(*raw) > 0 && json.Compact(&b, *raw) == nil {
			*raw = b.Bytes()
		}
	}
	switch {
	case n.Object == quire.ObjectDatabase:
		n.PageType = quire.PageTypeDatabase
		schema, err := properties.UnmarshalSchema(n.Properties)
		if err != nil || schema.Title() == nil {
			return quire.Invalid("properties", quire.ReasonInvalidValue, "The schema is not a stored schema.")
		}
		n.Properties, err = properties.MarshalSchema(schema)
		return err
	case n.Object == quire.ObjectPage && n.ParentType == quire.ParentDatabase:
		n.PageType = quire.PageTypePage
		vals, err := properties.UnmarshalValues(n.Properties)
		if err != nil {
			return quire.Invalid("properties", quire.ReasonInvalidValue, "The values are not stored values.")
		}
		n.Properties = properties.MarshalValues(vals)
	case n.Object == quire.ObjectPage && pageTypes[n.PageType]:
		n.Properties = []byte(`{}`)
	default:
		return quire.Invalid("object", quire.ReasonInvalidValue, "An imported node is a page, folder, mind map or database.")
	}
	return nil
}

// placeRestored checks n's parent and gives n its position (and its block in a parent page).
func (s *Service) placeRestored(ctx context.Context, tx *store.Tx, p *quire.Principal, n *quire.Node, pos string) error {
	if n.ParentType == quire.ParentDatabase {
		if _, err := s.lockDatabase(ctx, tx, p, n.ParentID, "parent.database_id"); err != nil {
			return err
		}
		n.Position = "a"
		return nil
	}
	parent, err := s.placeUnder(ctx, tx, p, Parent{Type: n.ParentType, ID: n.ParentID})
	if err != nil {
		return err
	}
	if parent == nil {
		if pos == "" {
			pos, err = s.topLevelEnd(ctx, tx, p.WorkspaceID())
		}
		n.Position = pos
		return err
	}
	// The parent's row is locked, not touched: a restored parent keeps its edit time.
	if err := tx.LockNode(ctx, parent.ID); err != nil {
		return err
	}
	if pos == "" {
		keys, err := positions(ctx, tx, p.WorkspaceID(), parent.ID, Placement{}, 1)
		if err != nil {
			return err
		}
		pos = keys[0]
	}
	n.Position = pos
	return s.insertChildPageBlock(ctx, tx, n, parent)
}

// restoreBody writes what a node holds beside its blocks: a database's views, a record's
// values and number, a mind map's tree.
func (s *Service) restoreBody(ctx context.Context, tx *store.Tx, n *quire.Node, in RestoredNode) error {
	switch {
	case n.Object == quire.ObjectDatabase:
		return restoreViews(ctx, tx, n, in.Views)
	case n.ParentType == quire.ParentDatabase:
		return s.restoreRecord(ctx, tx, n, in.Number)
	case n.PageType == quire.PageTypeMindMap:
		return s.insertMindMap(ctx, tx, n, in.MindMap)
	}
	return nil
}

func restoreViews(ctx context.Context, tx *store.Tx, n *quire.Node, vs []*quire.View) error {
	schema, err := DatabaseSchema(n)
	if err != nil {
		return err
	}
	keys, err := order.NBetween("", "", len(vs))
	if err != nil {
		return err
	}
	for i, v := range vs {
		row := *v
		row.WorkspaceID, row.DatabaseID, row.Position, row.Version = n.WorkspaceID, n.ID, keys[i], 1
		row.CreatedMs, row.CreatedBy, row.EditedMs, row.EditedBy = n.CreatedMs, n.CreatedBy, n.EditedMs, n.EditedBy
		path := "views[" + strconv.Itoa(i) + "]"
		if !quire.ValidID(row.ID) || !views.IsKind(row.Type) {
			return quire.Invalid(path, quire.ReasonInvalidValue, "A view needs a valid id and kind.")
		}
		v, err := openView(&row, schema)
		if err != nil {
			return quire.Invalid(path+".spec", quire.ReasonInvalidValue, "The view's settings are not stored settings.")
		}
		if row.Spec, err = views.Marshal(v.Spec); err != nil {
			return err
		}
		if err := tx.InsertView(ctx, &row); err != nil {
			return err
		}
	}
	return nil
}

// restoreRecord writes the value rows of record n and its number.
func (s *Service) restoreRecord(ctx context.Context, tx *store.Tx, n *quire.Node, number int64) error {
	db, err := tx.Node(ctx, n.WorkspaceID, n.ParentID)
	if err != nil {
		return err
	}
	schema, err := DatabaseSchema(db)
	if err != nil {
		return err
	}
	vals, err := properties.UnmarshalValues(n.Properties)
	if err != nil {
		return err
	}
	w := writesAtOnce(tx, db.ID)
	if number <= 0 {
		if number, err = w.number(ctx, n.ID); err != nil {
			return err
		}
	}
	f := float64(number)
	rows := append([]store.RecordValue{{PropertyID: store.NumberProperty, Num: &f}},
		rowsOf(properties.Scalars(schema, vals, number))...)
	return w.insert(ctx, n.ID, rows)
}

// decodeStoredTree reads stored blocks (markers left out) into blocks, validated as written.
func decodeStoredTree(sbs []*StoredBlock, path string) ([]*blocks.Block, error) {
	var p quire.Problems
	var walk func(sbs []*StoredBlock, path string) []*blocks.Block
	walk = func(sbs []*StoredBlock, path string) []*blocks.Block {
		var out []*blocks.Block
		for i, sb := range sbs {
			bp := path + "[" + strconv.Itoa(i) + "]"
			if IsTransferMarker(sb.Type) {
				continue
			}
			b, err := blocks.UnmarshalContent(sb.Type, sb.Content)
			if err != nil || !quire.ValidID(sb.ID) {
				p.Add(bp, quire.ReasonInvalidValue, "Not a stored block with a valid id.")
				continue
			}
			b.Children = walk(sb.Children, bp+".children")
			out = append(out, b)
		}
		return out
	}
	out := walk(sbs, path)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return out, blocks.Validate(out, path, nil, blocks.Limits{})
}

// insertStored writes stored blocks (their decoded forms in bs, markers left out) under
// parentID of page n with their own ids.
func (s *Service) insertStored(ctx context.Context, tx *store.Tx, n *quire.Node, parentID string, sbs []*StoredBlock, bs []*blocks.Block) error {
	var rows []*quire.Block
	var add func(parent string, sbs []*StoredBlock, bs []*blocks.Block) error
	add = func(parent string, sbs []*StoredBlock, bs []*blocks.Block) error {
		keys, err := order.NBetween("", "", len(sbs))
		if err != nil {
			return err
		}
		j := 0
		for i, sb := range sbs {
			if IsTransferMarker(sb.Type) {
				continue
			}
			b := bs[j]
			j++
			pos := sb.Position
			if pos == "" {
				pos = keys[i]
			}
			rows = append(rows, &quire.Block{ID: sb.ID, WorkspaceID: n.WorkspaceID, PageID: n.ID, ParentID: parent,
				Position: pos, Type: b.Type, Content: blocks.MarshalContent(b), Version: 1,
				CreatedMs: n.CreatedMs, CreatedBy: n.CreatedBy, EditedMs: n.EditedMs, EditedBy: n.EditedBy})
			if err := add(sb.ID, sb.Children, b.Children); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(parentID, sbs, bs); err != nil {
		return err
	}
	return tx.InsertBlocks(ctx, rows)
}

// RestoreFile stores the bytes of an upload as a completed file of the caller's workspace, with
// id when given (an export's) or a new one. A file already there is left as it is.
func (s *Service) RestoreFile(ctx context.Context, p *quire.Principal, f quire.File, body io.Reader) (*quire.File, error) {
	backend, err := s.storage()
	if err != nil {
		return nil, err
	}
	if f.ID == "" {
		f.ID = quire.NewID()
	} else if !quire.ValidID(f.ID) {
		return nil, quire.Invalid("id", quire.ReasonInvalidValue, "An imported file needs a valid id.")
	} else if old, err := s.store.File(ctx, p.WorkspaceID(), f.ID); err == nil && old.Status == quire.FileUploaded {
		return old, nil
	}
	if err := checkName("name", f.Name); err != nil {
		return nil, err
	}
	now := quire.NowMillis()
	f.WorkspaceID, f.TokenID, f.Status, f.StorageKey = p.WorkspaceID(), p.Token.ID, quire.FileUploaded, filestore.Key(f.ID)
	if f.CreatedMs == 0 {
		f.CreatedMs = now
	}
	f.ExpiresMs, f.CompletedMs = now, now
	// The bytes first: a row that says uploaded always has its bytes. A failure after the Put
	// leaves bytes without a row, which a re-run overwrites.
	if err := backend.Put(ctx, f.StorageKey, body, f.Size, f.ContentType); err != nil {
		return nil, err
	}
	err = s.store.InTx(ctx, func(tx *store.Tx) error { return tx.InsertFile(ctx, &f) })
	if err != nil {
		return nil, err
	}
	return &f, nil
}
