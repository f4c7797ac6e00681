package service_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// TestHasChildrenKept walks every write that changes a block's children, on both engines, and
// after each compares every block's stored has_children with its children in the store
// (store.ChildrenDrift), besides the flag the API reads for the blocks the step is about.
func TestHasChildrenKept(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			top := newPage(t, svc, p)
			parent := childPage(t, svc, p, top.ID, "Parent") // has a block, under top
			other := childPage(t, svc, p, top.ID, "Other")
			check := func(step string, want map[string]bool) {
				t.Helper()
				drift, err := st.ChildrenDrift(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(drift) > 0 {
					t.Fatalf("%s: has_children out of step for %v", step, drift)
				}
				for id, w := range want {
					b, _, err := svc.Block(ctx, p, id)
					if err != nil {
						t.Fatalf("%s: %v", step, err)
					}
					if b.HasChildren != w {
						t.Fatalf("%s: block %s has_children %v, want %v", step, id, b.HasChildren, w)
					}
				}
			}
			check("child pages created", map[string]bool{parent.ID: false, other.ID: false})

			// Appends: to a page (its child_page block), nested, to a block, between siblings.
			toggle := map[string]any{"type": "toggle", "toggle": map[string]any{
				"rich_text": []any{}, "children": paragraphs(2, "inner")}}
			top1 := appendTo(t, svc, p, parent.ID, service.Placement{}, toggle, paragraphs(1, "p")[0])
			tg, para := top1[0].ID, top1[1].ID
			if !top1[0].HasChildren || top1[1].HasChildren {
				t.Fatalf("append answered has_children %v, %v; want true, false", top1[0].HasChildren, top1[1].HasChildren)
			}
			check("nested append", map[string]bool{parent.ID: true, tg: true, para: false})
			inner := childIDs(t, svc, p, tg)
			under := appendTo(t, svc, p, para, service.Placement{}, paragraphs(1, "under")...)[0].ID
			check("append to a block", map[string]bool{para: true, under: false})
			appendTo(t, svc, p, tg, service.Placement{After: inner[0]}, paragraphs(1, "between")...)
			check("append between siblings", map[string]bool{tg: true})

			// Trash and restore children one by one: the flag goes when the last goes.
			trash := func(id string, in bool) {
				t.Helper()
				if _, _, err := svc.PatchBlock(ctx, p, id, map[string]any{"in_trash": in}, ""); err != nil {
					t.Fatal(err)
				}
			}
			trash(under, true)
			check("last child trashed", map[string]bool{para: false})
			trash(under, false)
			check("child restored", map[string]bool{para: true})
			for _, id := range childIDs(t, svc, p, tg) {
				trash(id, true)
			}
			check("all children trashed", map[string]bool{tg: false})
			if _, _, err := svc.TrashBlock(ctx, p, para); err != nil {
				t.Fatal(err)
			}
			check("a parent trashed keeps its flag", map[string]bool{para: true})

			// Markdown replaces the content: old blocks trashed, new ones written.
			if _, err := svc.ReplaceMarkdown(ctx, p, parent.ID, "- a\n  - b\n"); err != nil {
				t.Fatal(err)
			}
			check("markdown replaced", map[string]bool{parent.ID: true})
			if _, err := svc.ReplaceMarkdown(ctx, p, parent.ID, ""); err != nil {
				t.Fatal(err)
			}
			check("markdown emptied", map[string]bool{parent.ID: false})

			// Child pages: created, trashed, restored, moved; a database.
			sub := childPage(t, svc, p, parent.ID, "Sub")
			check("sub-page created", map[string]bool{parent.ID: true})
			appendTo(t, svc, p, sub.ID, service.Placement{}, paragraphs(1, "sub")...)
			check("sub-page content", map[string]bool{sub.ID: true})
			inTrash := func(id string, in bool) {
				t.Helper()
				if _, err := svc.PatchPage(ctx, p, id, service.PagePatch{InTrash: &in}); err != nil {
					t.Fatal(err)
				}
			}
			inTrash(sub.ID, true)
			check("sub-page trashed", nil)
			inTrash(sub.ID, false)
			check("sub-page restored", map[string]bool{parent.ID: true, sub.ID: true})
			if _, err := svc.MoveNode(ctx, p, sub.ID, service.Move{To: service.Parent{Type: quire.ParentPage, ID: other.ID}}, ""); err != nil {
				t.Fatal(err)
			}
			check("sub-page moved", map[string]bool{parent.ID: false, other.ID: true, sub.ID: true})
			db, err := service.DecodeNewDatabase([]byte(`{"parent":{"page_id":"` + parent.ID + `"},"title":[],"properties":{"Name":{"title":{}}}}`))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.CreateDatabase(ctx, p, db); err != nil {
				t.Fatal(err)
			}
			check("database created", map[string]bool{parent.ID: true})
		})
	}
}

// TestHasChildrenRace trashes a parent's only child page while another is created under it,
// 40 times. The creation holds the parent's row; the trash holds the workspace's tree lock and
// the trashed page's row, and takes the parent's row too, before the page's, so that it settles
// the parent's flag after the creation commits: without that lock it computed the flag without
// the new page's uncommitted block and wrote false after the creation found it true already.
func TestHasChildrenRace(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			top := newPage(t, svc, p)
			for round := range 40 {
				parent := childPage(t, svc, p, top.ID, fmt.Sprintf("Parent %d", round))
				old := childPage(t, svc, p, parent.ID, "old")
				var wg sync.WaitGroup
				errs := make(chan error, 2)
				wg.Go(func() {
					in := true
					_, err := svc.PatchPage(ctx, p, old.ID, service.PagePatch{InTrash: &in})
					errs <- err
				})
				wg.Go(func() {
					np, _, err := service.DecodeNewPage(map[string]any{"parent": map[string]any{"page_id": parent.ID}})
					if err == nil {
						_, err = svc.CreatePage(ctx, p, np)
					}
					errs <- err
				})
				wg.Wait()
				close(errs)
				for err := range errs {
					if err != nil {
						t.Fatal(err)
					}
				}
				b, _, err := svc.Block(ctx, p, parent.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !b.HasChildren {
					t.Fatalf("round %d: a page created under it, has_children false", round)
				}
			}
			if drift, err := st.ChildrenDrift(ctx); err != nil || len(drift) > 0 {
				t.Fatalf("drift %v, %v", drift, err)
			}
		})
	}
}

// childPage creates a page titled title under page parent.
func childPage(t *testing.T, svc *service.Service, p *quire.Principal, parent, title string) *quire.Node {
	t.Helper()
	return createPage(t, svc, p, map[string]any{"parent": map[string]any{"page_id": parent},
		"properties": map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": title}}}}})
}

// appendTo appends children to block or page id at pl and returns the created top-level blocks.
func appendTo(t *testing.T, svc *service.Service, p *quire.Principal, id string, pl service.Placement, children ...any) []*quire.Block {
	t.Helper()
	created, _, err := svc.AppendChildren(ctx, p, id, children, pl)
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// childIDs lists the ids of id's children out of trash (up to 100).
func childIDs(t *testing.T, svc *service.Service, p *quire.Principal, id string) []string {
	t.Helper()
	pg, _, err := svc.Children(ctx, p, id, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range pg.Items {
		out = append(out, b.ID)
	}
	return out
}
