package store_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestStore_FileChecksInBatches checks the batched reads and writes of file references past a
// batch of a hundred: which ids are complete uploads of the workspace, and the uses recorded
// (each once, whatever the repeats), walked back on their keyset.
func TestStore_FileChecksInBatches(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		other, _ := seed(t, s)
		page := quire.NewID()
		var ids []string
		want := map[string]bool{}
		mustTx(t, s, func(tx *store.Tx) error {
			for i := range 250 {
				f := &quire.File{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), WorkspaceID: w.ID, TokenID: "t",
					Name: "f", ContentType: "text/plain", Status: quire.FileUploaded, StorageKey: "k", CreatedMs: 1, ExpiresMs: 2}
				switch i % 5 {
				case 1:
					f.Status = quire.FilePending
				case 2:
					f.WorkspaceID = other.ID
				default:
					want[f.ID] = true
				}
				ids = append(ids, f.ID, f.ID) // every id twice
				if err := tx.InsertFile(ctx, f); err != nil {
					return err
				}
			}
			return nil
		})
		mustTx(t, s, func(tx *store.Tx) error {
			got, err := tx.UploadedFiles(ctx, w.ID, append(ids, quire.NewID()))
			if err != nil {
				return err
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("UploadedFiles (-want +got):\n%s", d)
			}
			if err := tx.AddFileUses(ctx, page, ids); err != nil {
				return err
			}
			return tx.AddFileUses(ctx, page, ids[:10]) // again: no duplicates, no error
		})
		// One file used by 150 pages: the keyset walk returns each page once, in order.
		var pagesWant []string
		mustTx(t, s, func(tx *store.Tx) error {
			for i := range 150 {
				p := fmt.Sprintf("10000000-0000-4000-8000-%012d", 149-i)
				pagesWant = append([]string{p}, pagesWant...)
				if err := tx.AddFileUses(ctx, p, []string{ids[2]}); err != nil {
					return err
				}
			}
			return nil
		})
		var walked []string
		for after := ""; ; {
			batch, err := s.FileUses(ctx, ids[2], after, 100)
			if err != nil {
				t.Fatal(err)
			}
			walked = append(walked, batch...)
			if len(batch) < 100 {
				break
			}
			after = batch[len(batch)-1]
		}
		all := append(pagesWant, page)
		slices.Sort(all)
		if d := cmp.Diff(all, walked); d != "" {
			t.Fatalf("FileUses walk (-want +got):\n%s", d)
		}
		for _, id := range []string{ids[0], ids[498]} {
			pages, err := s.FileUses(ctx, id, "", 100)
			if err != nil || len(pages) != 1 || pages[0] != page {
				t.Fatalf("FileUses(%s) = %v, %v; want [%s]", id, pages, err, page)
			}
		}
	})
}
