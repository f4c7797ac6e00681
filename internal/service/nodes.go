package service

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// nodeWrite is a PATCH, move, trash or restore of one page, database or mind map, as the
// prelude every such write shares (writeNode) needs it.
type nodeWrite struct {
	id, ifMatch string
	// kind names the node in not_found ("page", "database", "mind map"); is tells whether the
	// node read is of that kind.
	kind string
	is   func(*quire.Node) bool
	// lockTree takes the workspace's tree lock first: trash, restore and move rewrite the
	// descendants' trashed_under, one at a time per workspace, so that two of them never lock
	// the same rows in turn. Such a write also takes its parent page's row before the node's:
	// it adds a child to that page or removes one (the node's child_page block), and every
	// write that does holds the page's row (store/blocks_children.go says why).
	lockTree bool
	// record locks a record's database before the record, as every write of records does.
	record bool
	// databases are further databases whose records the write changes (a move into one): their
	// locks are taken with the record's own database's, before the node.
	databases []string
	// refuse is a problem of the request alone, answered once the caller is known to reach
	// the node: a node out of reach stays not_found.
	refuse error
	// check is the write's own test of the node as read, after If-Match: its trash state,
	// mostly. Nil admits any node of the kind.
	check func(*quire.Node) error
}

func isPage(n *quire.Node) bool     { return n.Object == quire.ObjectPage }
func isDatabase(n *quire.Node) bool { return n.Object == quire.ObjectDatabase }
func isMindMap(n *quire.Node) bool  { return n.PageType == quire.PageTypeMindMap }

// readNode returns node id (in trash too) when the caller reaches it and it is of the kind that
// is tells, else not_found.
func (s *Service) readNode(ctx context.Context, p *quire.Principal, id, kind string, is func(*quire.Node) bool) (*quire.Node, error) {
	if r, ok := readWithToken(ctx, p, id); ok && r.serves(kind) {
		if r.node == nil || !is(r.node) {
			return nil, quire.NotFound(kind + " " + id)
		}
		n := *r.node // the caller may change what it gets (a record's rendering): the read stays as read
		return &n, nil
	}
	// A workspace-scoped token reaches every node of its workspace, and the read is by workspace
	// and id: the read is the reach check, one statement instead of two.
	if !p.Token.WorkspaceScoped || !quire.ValidID(id) {
		if err := s.Reach(ctx, p, id, kind+" "+id); err != nil {
			return nil, err
		}
	}
	n, err := s.store.Node(ctx, p.WorkspaceID(), id)
	if quire.IsCode(err, quire.CodeNotFound) {
		return nil, quire.NotFound(kind + " " + id)
	}
	if err != nil {
		return nil, err
	}
	if !is(n) {
		return nil, quire.NotFound(kind + " " + id)
	}
	return n, nil
}

// writeNode runs change on node w.id in one transaction, after the prelude every PATCH, move,
// trash and restore of a node shares: reach, the locks, the read, the kind, If-Match and the
// write's own check. It returns the node as change leaves it.
func (s *Service) writeNode(ctx context.Context, p *quire.Principal, w nodeWrite, change func(tx *store.Tx, n *quire.Node) error) (*quire.Node, error) {
	if err := s.Reach(ctx, p, w.id, w.kind+" "+w.id); err != nil {
		return nil, err
	}
	if w.refuse != nil {
		return nil, w.refuse
	}
	var n *quire.Node
	var err error
	// A write that does not take the tree lock reads the node's parent before locking: a move
	// committed in between leaves that read stale, and the record's database would then be
	// locked after the record, against every other writer's order (databases first). The
	// transaction is rolled back and run once more under the workspace's tree lock, which
	// every move holds, so the parent it reads then stays put: the second run cannot find the
	// node moved, however many moves are queued (optimistic runs alone lost to eight
	// concurrent moves of one page under load).
	err = s.writeNodeOnce(ctx, p, w, change, &n)
	if errors.Is(err, errParentMoved) {
		w.lockTree = true
		err = s.writeNodeOnce(ctx, p, w, change, &n)
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

// errParentMoved says the node moved between writeNodeOnce's read of its parent and its lock.
// Only a run without the tree lock can see it; writeNode then runs again under that lock.
var errParentMoved = quire.Conflict("The page moved while it was being written; retry the request.")

// writeNodeOnce is one transaction of writeNode, leaving the node in *out.
func (s *Service) writeNodeOnce(ctx context.Context, p *quire.Principal, w nodeWrite, change func(tx *store.Tx, n *quire.Node) error, out **quire.Node) error {
	return s.store.InTx(ctx, func(tx *store.Tx) error {
		if w.lockTree {
			if err := tx.LockTree(ctx, p.WorkspaceID()); err != nil {
				return err
			}
		}
		var first *quire.Node // as read before any lock: its parent stays put under the tree lock
		if w.record || w.lockTree {
			var err error
			if first, err = tx.Node(ctx, p.WorkspaceID(), w.id); err != nil && !quire.IsCode(err, quire.CodeNotFound) {
				return err
			}
		}
		if w.record {
			dbs := w.databases
			if first != nil && first.ParentType == quire.ParentDatabase {
				dbs = append([]string{first.ParentID}, dbs...)
			}
			if len(dbs) > 0 {
				if _, err := lockRecordDatabases(ctx, tx, p.WorkspaceID(), dbs[0], dbs[1:]...); err != nil {
					return err
				}
			}
		}
		// The parent before the child, as a record's database before the record.
		if w.lockTree && first != nil && first.ParentType == quire.ParentPage {
			if err := tx.LockNode(ctx, first.ParentID); err != nil {
				return err
			}
		}
		n, err := lockNode(ctx, tx, p.WorkspaceID(), w.id, w.kind, w.is)
		if err != nil {
			return err
		}
		if first != nil && (n.ParentType != first.ParentType || n.ParentID != first.ParentID) {
			return errParentMoved
		}
		*out = n
		if err := CheckVersion(w.ifMatch, n.Version); err != nil {
			return err
		}
		if w.check != nil {
			if err := w.check(n); err != nil {
				return err
			}
		}
		return change(tx, n)
	})
}

// saveNode writes node n as a PATCH leaves it, with the edit's time and author, putting it in
// trash or taking it out when inTrash says so. Its child_page (or child_database) block
// follows a new title or trash state, its descendants' trashed_under a new trash state.
func saveNode(ctx context.Context, tx *store.Tx, p *quire.Principal, n *quire.Node, inTrash *bool, retitled bool) error {
	trashChanged := inTrash != nil && *inTrash != n.InTrash
	recordTrash(tx, p, n, inTrash)
	if inTrash != nil {
		n.InTrash = *inTrash
	}
	n.EditedMs, n.EditedBy = quire.NowMillis(), p.Token.OwnerID
	if err := tx.UpdateNode(ctx, n); err != nil {
		return err
	}
	if n.ParentType == quire.ParentPage && (retitled || trashChanged) {
		if err := tx.SyncChildPageBlock(ctx, n.ID, childPageContent(n), n.InTrash, trashChanged, n.EditedMs, n.EditedBy); err != nil {
			return err
		}
	}
	if trashChanged {
		return tx.RefreshTrashedUnder(ctx, n.ID)
	}
	return nil
}

// setIcons gives node n the icon and cover a PATCH names (nil leaves one alone), once the
// uploads they name are checked and recorded as used by n.
func setIcons(ctx context.Context, tx *store.Tx, ws string, n *quire.Node, icon, cover *json.RawMessage) error {
	var refs fileRefs
	refs.icon(icon, "icon")
	refs.icon(cover, "cover")
	if err := refs.use(ctx, tx, ws, n.ID); err != nil {
		return err
	}
	if icon != nil {
		n.Icon = *icon
	}
	if cover != nil {
		n.Cover = *cover
	}
	return nil
}

// lockNode holds node id's row (PostgreSQL) and reads it, or answers not_found when it is not
// of the kind that is tells.
func lockNode(ctx context.Context, tx *store.Tx, ws, id, kind string, is func(*quire.Node) bool) (*quire.Node, error) {
	if err := tx.LockNode(ctx, id); err != nil {
		return nil, err
	}
	n, err := tx.Node(ctx, ws, id)
	if err != nil {
		return nil, err
	}
	if !is(n) {
		return nil, quire.NotFound(kind + " " + id)
	}
	return n, nil
}

// CheckVersion answers conflict unless If-Match is absent, "*", or names version (quire's ETag
// form W/"n"; the weak prefix is optional, as clients differ). Every versioned write calls it
// on the row it has locked.
func CheckVersion(ifMatch string, version int64) error {
	if ifMatch == "" || ifMatch == "*" {
		return nil
	}
	want := `"` + itoa(version) + `"`
	for _, v := range strings.Split(ifMatch, ",") {
		if strings.TrimPrefix(strings.TrimSpace(v), "W/") == want {
			return nil
		}
	}
	return quire.Conflict("The resource changed since the version in If-Match; read it again and retry.")
}
