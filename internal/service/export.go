package service

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// The reads of a workspace export (package transfer): content in its stored form, so that
// RestoreNode writes back exactly what was read. Each read is bounded: one listing batch, one
// page's blocks, one batch of records.

// TopLevelNodes lists the workspace's top-level pages and databases (not in trash) in sidebar
// order, in stored form.
func (s *Service) TopLevelNodes(ctx context.Context, p *quire.Principal) ([]*quire.Node, error) {
	if err := RequireWorkspaceScoped(p); err != nil {
		return nil, err
	}
	var out []*quire.Node
	q := store.NodeQuery{Workspace: p.WorkspaceID(), TopLevel: true, Order: store.BySidebar, Limit: exportBatch}
	for {
		batch, err := s.store.ListNodes(ctx, q)
		if err != nil {
			return nil, err
		}
		out = append(out, batch...)
		if len(batch) < exportBatch {
			return out, nil
		}
		k := store.BySidebar.Key(batch[len(batch)-1])
		q.After = &k
	}
}

// StoredNode returns node id (a page or a database) in stored form: a record's properties as
// stored, not rendered.
func (s *Service) StoredNode(ctx context.Context, p *quire.Principal, id string) (*quire.Node, error) {
	if err := s.Reach(ctx, p, id, "node "+id); err != nil {
		return nil, err
	}
	return s.store.Node(ctx, p.WorkspaceID(), id)
}

// ContentTree returns page id's blocks that are not in trash, nested, in stored form. Child
// pages and databases are kept as their child_page and child_database blocks, not descended.
func (s *Service) ContentTree(ctx context.Context, p *quire.Principal, id string) ([]*StoredBlock, error) {
	if err := s.Reach(ctx, p, id, "page "+id); err != nil {
		return nil, err
	}
	var walk func(parent string) ([]*StoredBlock, error)
	walk = func(parent string) ([]*StoredBlock, error) {
		var out []*StoredBlock
		var after *store.ChildKey
		for {
			batch, err := s.store.ChildContents(ctx, parent, after, exportBatch)
			if err != nil {
				return nil, err
			}
			for _, row := range batch {
				sb := &StoredBlock{ID: row.ID, Type: row.Type, Content: row.Content}
				if IsTransferMarker(row.Type) {
					sb.Content = nil
				} else if row.HasChildren {
					if sb.Children, err = walk(row.ID); err != nil {
						return nil, err
					}
				}
				out = append(out, sb)
			}
			if len(batch) < exportBatch {
				return out, nil
			}
			last := batch[len(batch)-1]
			after = &store.ChildKey{Position: last.Position, ID: last.ID}
		}
	}
	return walk(id)
}

// EachRecord calls fn with each record of database db that is not in trash, in id order (the
// order they were made in), in stored form with its number. Records are read in batches, each
// in a short transaction of its own.
func (s *Service) EachRecord(ctx context.Context, p *quire.Principal, db string, fn func(n *quire.Node, number int64) error) error {
	if err := s.Reach(ctx, p, db, "database "+db); err != nil {
		return err
	}
	// The records' ids first, then the records by id a batch at a time (store.RecordIDs): a
	// record made after the first read is not visited, one moved out or deleted since is skipped.
	var all []string
	if err := s.store.InTx(ctx, func(tx *store.Tx) (err error) {
		all, err = tx.RecordIDs(ctx, db)
		return err
	}); err != nil {
		return err
	}
	for start := 0; start < len(all); start += recordBatch {
		var batch []*quire.Node
		var nums map[string]int64
		err := s.store.InTx(ctx, func(tx *store.Tx) error {
			var err error
			if batch, err = tx.RecordsIn(ctx, p.WorkspaceID(), db, all[start:min(start+recordBatch, len(all))]); err != nil {
				return err
			}
			ids := make([]string, len(batch))
			for i, n := range batch {
				ids[i] = n.ID
			}
			nums, err = tx.RecordNumbers(ctx, ids)
			return err
		})
		if err != nil {
			return err
		}
		for _, n := range batch {
			if n.Hidden() {
				continue
			}
			if err := fn(n, nums[n.ID]); err != nil {
				return err
			}
		}
	}
	return nil
}

// RenderedProperties is a record's properties in the API's read shape (stored n is left as
// it is).
func (s *Service) RenderedProperties(ctx context.Context, n *quire.Node, number int64) ([]byte, error) {
	c := *n
	if err := s.RenderRecords(ctx, []*quire.Node{&c}, map[string]int64{n.ID: number}); err != nil {
		return nil, err
	}
	return c.Properties, nil
}

// OpenStoredFile returns an uploaded file of the caller's workspace with its bytes, for an
// export: from the backend itself, or through a short-lived presigned URL for one that serves
// its files that way (S3).
func (s *Service) OpenStoredFile(ctx context.Context, p *quire.Principal, id string) (*quire.File, io.ReadCloser, error) {
	backend, err := s.storage()
	if err != nil {
		return nil, nil, err
	}
	f, err := s.store.File(ctx, p.WorkspaceID(), id)
	if err != nil {
		return nil, nil, err
	}
	if f.Status != quire.FileUploaded {
		return nil, nil, quire.NotFound("file " + id)
	}
	u, err := backend.PresignGet(ctx, f.StorageKey, time.Now().Add(time.Minute))
	if err != nil {
		return nil, nil, err
	}
	if u == "" {
		r, _, err := backend.Open(ctx, f.StorageKey)
		return f, r, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, nil, fmt.Errorf("file %s: the bucket answered %s", id, resp.Status)
	}
	return f, resp.Body, nil
}
