package service

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// MaxMutations is the most operations one POST /v2/databases/:id/mutations applies.
const MaxMutations = 100

// Mutation is one operation of a mutations body.
type Mutation struct {
	Op         string // create, update, trash, restore
	PageID     string // update, trash, restore
	Properties any    // create, update: raw, checked against the schema in the transaction
	Children   []*blocks.Block
	Path       string // "mutations[3]"
	// raw is a create's properties object as the fast path (readMutations) kept it, its bytes
	// unparsed; Properties is then nil, and values reads them.
	raw []byte
}

// MutationShape is every member an operation of a mutations body may hold, as DecodeMutations
// reads it; mutationFields says which op takes which.
var MutationShape = jsonbody.Body{Fields: []jsonbody.Field{
	{Name: "op", Type: "string", Required: true, Enum: []string{"create", "update", "trash", "restore"}},
	{Name: "page_id", Type: "string", Format: "uuid", Doc: "update, trash, restore: the record."},
	{Name: "properties", Shape: "PropertyValuesInput", Doc: "create, update: property values by name or id."},
	{Name: "children", Type: "array", Shape: "BlockInput", MaxItems: blocks.MaxArray, Doc: "create: content blocks."},
}}

// mutationFields are the members of MutationShape each op takes.
var mutationFields = map[string][]string{
	"create":  {"op", "properties", "children"},
	"update":  {"op", "properties", "page_id"},
	"trash":   {"op", "page_id"},
	"restore": {"op", "page_id"},
}

// DecodeMutations validates a mutations body's shape: {"mutations":[…]}, at most 100 items.
// A batch of plain creates is read by the fast path (readMutations); any other body, and
// every problem, by decodeMutationsTree.
func DecodeMutations(raw []byte) ([]Mutation, error) {
	if ops, ok := readMutations(raw); ok {
		return ops, nil
	}
	return decodeMutationsTree(raw)
}

// decodeMutationsTree is DecodeMutations' reference path: jsonbody's tree of the body, every
// problem reported.
func decodeMutationsTree(raw []byte) ([]Mutation, error) {
	body, err := jsonbody.Parse(raw)
	if err != nil {
		return nil, err
	}
	var p quire.Problems
	MutationsBody.Unknown(&p, body)
	arr, ok := body["mutations"].([]any)
	switch {
	case body["mutations"] == nil:
		p.Add("mutations", quire.ReasonRequired, "mutations is required.")
	case !ok:
		p.Add("mutations", quire.ReasonInvalidType, "mutations must be an array.")
	case len(arr) == 0:
		p.Add("mutations", quire.ReasonRequired, "mutations holds at least one operation.")
	case len(arr) > MaxMutations:
		p.AddDetail(quire.Beyond("mutations", quire.ReasonTooMany, MaxMutations, int64(len(arr))), fmt.Sprintf("mutations holds at most %d operations.", MaxMutations))
		arr = nil
	}
	out := make([]Mutation, 0, len(arr))
	for i, v := range arr {
		m := Mutation{Path: fmt.Sprintf("mutations[%d]", i)}
		obj, ok := v.(map[string]any)
		if !ok {
			p.Add(m.Path, quire.ReasonInvalidType, "An operation is an object.")
			continue
		}
		op, _ := obj["op"].(string)
		allowed, known := mutationFields[op]
		switch {
		case obj["op"] == nil:
			p.Add(m.Path+".op", quire.ReasonRequired, "op is create, update, trash or restore.")
			continue
		case !known:
			p.Add(m.Path+".op", quire.ReasonInvalidValue, "op is create, update, trash or restore.")
			continue
		}
		m.Op = op
		if hasUnknown(obj, allowed) {
			for _, k := range jsonbody.SortedKeys(obj) { // sorted only when reported
				if !slices.Contains(allowed, k) {
					p.Add(jsonbody.Join(m.Path, k), quire.ReasonUnknownField, "A "+op+" operation has no field "+k+".")
				}
			}
		}
		if slices.Contains(allowed, "page_id") {
			id, isStr := obj["page_id"].(string)
			switch {
			case obj["page_id"] == nil:
				p.Add(m.Path+".page_id", quire.ReasonRequired, "page_id is required.")
			case !isStr || !quire.ValidID(id):
				p.Add(m.Path+".page_id", quire.ReasonInvalidValue, "page_id must be a record's id.")
			default:
				m.PageID = id
			}
		}
		if v, ok := obj["properties"]; ok {
			if _, isObj := v.(map[string]any); !isObj {
				p.Add(m.Path+".properties", quire.ReasonInvalidType, "properties must be an object.")
			}
			m.Properties = v
		} else if op == "update" {
			p.Add(m.Path+".properties", quire.ReasonRequired, "An update names properties.")
		}
		if v, ok := obj["children"]; ok && op == "create" {
			if bs, err := blocks.DecodeValue(v, m.Path+".children", nil); err != nil {
				mergeProblems(&p, err)
			} else {
				m.Children = bs
			}
		}
		out = append(out, m)
	}
	return out, p.Err()
}

// hasUnknown reports whether obj has a key that allowed does not list.
func hasUnknown(obj map[string]any, allowed []string) bool {
	for k := range obj {
		if !slices.Contains(allowed, k) {
			return true
		}
	}
	return false
}

// MutateRecords applies operations to database id's records in one transaction: every
// operation is checked, every problem reported with its operation's path, and nothing is
// applied unless all succeed. It returns the resulting records in order.
func (s *Service) MutateRecords(ctx context.Context, p *quire.Principal, id string, ops []Mutation) ([]*quire.Node, error) {
	creates := slices.ContainsFunc(ops, func(m Mutation) bool { return m.Op == "create" })
	// A workspace-scoped token reaches every node of its workspace: the read of the database
	// that decodeCreates makes answers the reach check too (one statement, on PostgreSQL one
	// round trip, fewer per batch).
	if !creates || !p.Token.WorkspaceScoped {
		if err := s.Reach(ctx, p, id, "database "+id); err != nil {
			return nil, err
		}
	}
	var decoded *decodedCreates
	if creates {
		var err error
		if decoded, err = s.decodeCreates(ctx, p, id, ops); err != nil {
			return nil, err
		}
	}
	out := make([]*quire.Node, len(ops))
	var schema quire.Schema
	var nums map[string]int64
	if afterDecodeCreates != nil {
		afterDecodeCreates()
	}
	shared := sharesDatabase(ops, decoded)
	batch := func(tx *store.Tx) error {
		// Trash and restore rewrite the records' descendants' trashed_under, as PATCH of a
		// page does: under the workspace's tree lock, taken first as there, so that a move
		// into a record being trashed cannot miss the refresh.
		if slices.ContainsFunc(ops, func(m Mutation) bool { return m.Op == "trash" || m.Op == "restore" }) {
			if err := tx.LockTree(ctx, p.WorkspaceID()); err != nil {
				return err
			}
		}
		var db *recordDB
		var err error
		held := false
		if shared {
			db, held, err = s.shareDatabase(ctx, tx, p, id, "database_id")
		} else {
			db, err = s.lockDatabase(ctx, tx, p, id, "database_id")
		}
		if err != nil {
			return err
		}
		schema = db.schema
		now := quire.NowMillis()
		read, err := readTargets(ctx, tx, p, db, ops)
		if err != nil {
			return err
		}
		w := writesAtOnce(tx, db.node.ID)
		if read.nodes != nil {
			w = gatheredWrites(tx, db.node.ID)
			w.shared = held
		} else if held {
			return errNeedsExclusive // writes at once number as they go, which a shared lock does not allow
		}
		var pr quire.Problems
		for i, m := range ops {
			n, err := s.mutate(ctx, tx, w, p, db, m, read.nodes, now, decoded, i)
			if qe, ok := quire.AsError(err); ok && qe.Code == quire.CodeValidation {
				pr.Merge(qe)
				continue
			}
			if err != nil {
				return err
			}
			out[i] = n
		}
		if err := pr.Err(); err != nil {
			return err
		}
		if err := w.flush(ctx); err != nil { // under a shared lock, flush gives the numbers
			return err
		}
		if read.nodes != nil {
			nums = read.nums
			for id, n := range w.numbers {
				nums[id] = n
			}
		}
		return nil
	}
	err := s.store.InTx(ctx, batch)
	if errors.Is(err, errNeedsExclusive) {
		shared = false
		err = s.store.InTx(ctx, batch)
	}
	if err != nil {
		return nil, err
	}
	if nums == nil {
		return out, s.RenderRecords(ctx, out, nil)
	}
	// The batch knows every result's number (its creates', and those read with the targets)
	// and the schema it wrote under: nothing more to read.
	return out, renderIn(out, schema, nums)
}

// targets are the records a batch's operations name, read in one statement with their
// numbers; nodes is nil when each operation reads its record itself.
type targets struct {
	nodes map[string]*quire.Node
	nums  map[string]int64
}

// readTargets locks the records that ops update, trash or restore and reads them in one
// statement (one per hundred) rather than a lock and a read per operation. Each
// operation reads its record itself instead when a dual relation syncs into db: a sync
// rewrites records of db, which a later operation of the batch may name.
func readTargets(ctx context.Context, tx *store.Tx, p *quire.Principal, db *recordDB, ops []Mutation) (targets, error) {
	for _, prop := range db.schema {
		if prop.Type == quire.PropRelation && prop.DualPropertyID != "" && prop.RelationDatabaseID == db.node.ID {
			return targets{}, nil
		}
	}
	var ids []string
	seen := map[string]bool{}
	for _, m := range ops {
		if m.Op == "create" || seen[m.PageID] {
			continue
		}
		seen[m.PageID] = true
		ids = append(ids, m.PageID)
	}
	// The order they are locked in does not matter: every writer of records locks their
	// database first (lockRecordDatabases).
	nodes, nums, err := tx.LockRecordsByID(ctx, p.WorkspaceID(), ids, hasUniqueID(db.schema))
	if err != nil {
		return targets{}, err
	}
	read := targets{nodes: make(map[string]*quire.Node, len(nodes)), nums: nums}
	for _, n := range nodes {
		read.nodes[n.ID] = n
	}
	return read, nil
}

// target is record id as an operation starts from: a copy of its state after the batch's
// earlier operations when read holds it (readTargets), else read now.
func target(ctx context.Context, tx *store.Tx, p *quire.Principal, read map[string]*quire.Node, id string) (*quire.Node, error) {
	if read == nil {
		if err := tx.LockNode(ctx, id); err != nil {
			return nil, err
		}
		return tx.Node(ctx, p.WorkspaceID(), id)
	}
	n, ok := read[id]
	if !ok {
		return nil, quire.NotFound("page " + id)
	}
	c := *n // each operation's result is rendered on its own copy
	return &c, nil
}

// mutate applies operation i, m; a validation error's paths are under m.Path.
func (s *Service) mutate(ctx context.Context, tx *store.Tx, w *recordWrites, p *quire.Principal, db *recordDB, m Mutation, read map[string]*quire.Node, now int64, decoded *decodedCreates, i int) (*quire.Node, error) {
	if m.Op == "create" {
		vals, form, err := decoded.values(db, i, m)
		if err != nil {
			return nil, err
		}
		return s.createRecord(ctx, tx, w, p, db, vals, form, m.Path+".properties", m.Children, nil, nil, now)
	}
	n, err := target(ctx, tx, p, read, m.PageID)
	if err == nil && read != nil {
		defer func() {
			c := *n // the state the batch's next operation on this record starts from
			read[m.PageID] = &c
		}()
	}
	if quire.IsCode(err, quire.CodeNotFound) || (err == nil && (n.ParentType != quire.ParentDatabase || n.ParentID != db.node.ID)) {
		return nil, quire.Invalid(m.Path+".page_id", quire.ReasonInvalidValue, "page_id must name a record of this database.")
	}
	if err != nil {
		return nil, err
	}
	switch m.Op {
	case "update":
		if n.InTrash {
			return nil, quire.Invalid(m.Path+".page_id", quire.ReasonArchived, "The record is in trash; restore it first.")
		}
		return n, s.updateRecord(ctx, tx, w, p, db, n, m.Properties, m.Path+".properties", now)
	}
	trash := m.Op == "trash"
	if n.InTrash == trash {
		return n, nil
	}
	recordTrash(tx, p, n, &trash)
	n.InTrash = trash
	n.EditedMs, n.EditedBy = now, p.Token.OwnerID
	if err := w.writeEdits(ctx); err != nil { // UpdateNode checks n's version in the table
		return nil, err
	}
	if err := tx.UpdateNode(ctx, n); err != nil {
		return nil, err
	}
	return n, tx.RefreshTrashedUnder(ctx, n.ID)
}
