package transfer

import (
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// readNative reads an export back into a plan with its own ids. Its top-level nodes (and any
// node whose parent is not in it) go under opts.Parent or the workspace, at the end; every
// other node takes the place it had among its parent's blocks.
func readNative(fsys fs.FS, opts Options) (*plan, error) {
	raw, err := fs.ReadFile(fsys, manifestName)
	if err != nil {
		return nil, err
	}
	var man Manifest
	if err := json.Unmarshal(raw, &man); err != nil {
		return nil, fmt.Errorf("%s: %w", manifestName, err)
	}
	if man.Format != "quire-export" || man.Version != 1 {
		return nil, fmt.Errorf("%s: not a version 1 Quire export", manifestName)
	}
	pl := &plan{}
	for _, f := range man.Files {
		pl.files = append(pl.files, planFile{Source: f.Path,
			File: quire.File{ID: f.ID, Name: f.Name, ContentType: f.ContentType, CreatedMs: f.CreatedMs}})
	}
	in := map[string]bool{}
	for _, en := range man.Nodes {
		in[en.ID] = true
	}
	// The place of each child page or database among its parent's blocks, learnt when the
	// parent's blocks are read, which is always before the child is written.
	places := map[string]string{}
	for _, en := range man.Nodes {
		n := &quire.Node{ID: en.ID, Object: en.Object, PageType: en.PageType, ParentType: en.ParentType,
			ParentID: en.ParentID, Title: en.Title, Icon: en.Icon, Cover: en.Cover, Description: en.Description,
			IsInline: en.IsInline, Properties: en.Properties,
			CreatedMs: en.CreatedMs, CreatedBy: en.CreatedBy, EditedMs: en.EditedMs, EditedBy: en.EditedBy}
		if n.ParentType == quire.ParentWorkspace || !in[n.ParentID] {
			n.ParentType, n.ParentID = quire.ParentWorkspace, ""
			if opts.Parent != "" {
				n.ParentType, n.ParentID = quire.ParentPage, opts.Parent
			}
		}
		pn := planNode{Source: en.Path, RestoredNode: service.RestoredNode{Node: n, Number: en.Number}}
		for _, v := range en.Views {
			pn.Views = append(pn.Views, &quire.View{ID: v.ID, Name: v.Name, Type: v.Type, Spec: v.Spec})
		}
		if en.MindMap != nil && en.MindMap.Root != nil {
			pn.MindMap = en.MindMap.newMindMap()
		}
		id, hasContent := en.ID, en.HasContent
		pn.load = func(rn *service.RestoredNode) error {
			rn.Position = places[id]
			if !hasContent {
				return nil
			}
			raw, err := fs.ReadFile(fsys, "content/"+id+".json")
			if err != nil {
				return err
			}
			if err := json.Unmarshal(raw, &rn.Blocks); err != nil {
				return fmt.Errorf("content/%s.json: %w", id, err)
			}
			keys, err := order.NBetween("", "", len(rn.Blocks))
			if err != nil {
				return err
			}
			for i, b := range rn.Blocks {
				b.Position = keys[i]
				if service.IsTransferMarker(b.Type) {
					places[b.ID] = keys[i]
				}
			}
			return nil
		}
		pl.nodes = append(pl.nodes, pn)
	}
	return pl, nil
}
