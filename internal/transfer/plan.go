// Package transfer exports a workspace to files and imports it back, and imports a folder of
// Markdown files or a Notion "Markdown & CSV" export. Every importer reads its source into a
// plan: uploads and nodes with their ids, parents first. The plan is then written through the
// service one node per transaction (service.RestoreNode), so that a node is there whole or
// not at all, and a node already there is skipped: an interrupted import is re-run as it was.
package transfer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"path"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// Failure is a source file that could not be read or written, and why.
type Failure struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Summary counts what an import or export did.
type Summary struct {
	Pages     int       `json:"pages"`
	Databases int       `json:"databases"`
	Records   int       `json:"records"`
	MindMaps  int       `json:"mind_maps"`
	Files     int       `json:"files"`
	Skipped   int       `json:"skipped"` // already there (a re-run)
	Failed    []Failure `json:"failed"`
}

func (s *Summary) count(n *quire.Node) {
	switch {
	case n.Object == quire.ObjectDatabase:
		s.Databases++
	case n.ParentType == quire.ParentDatabase:
		s.Records++
	case n.PageType == quire.PageTypeMindMap:
		s.MindMaps++
	default:
		s.Pages++
	}
}

func (s *Summary) fail(path string, err error) {
	s.Failed = append(s.Failed, Failure{Path: path, Reason: reason(err)})
}

// reason is an error as a one-line reason, with the paths a validation error names.
func reason(err error) string {
	if qe, ok := quire.AsError(err); ok {
		msg := qe.Message
		for _, d := range qe.Details {
			msg += fmt.Sprintf(" [%s: %s]", d.Path, d.Reason)
		}
		return msg
	}
	return err.Error()
}

// planFile is an upload to store before the nodes that use it.
type planFile struct {
	Source string // path in the source
	File   quire.File
}

// planNode is one node to restore and the source file it came from.
type planNode struct {
	Source string
	service.RestoredNode
	// load, when set, reads the node's blocks just before it is written: a plan never holds
	// every page's content at once.
	load func(n *service.RestoredNode) error
}

// plan is what an importer read: uploads first, then nodes, each after its parent.
type plan struct {
	files []planFile
	nodes []planNode
}

// Options are an import's choices.
type Options struct {
	// Parent, when set, is the page the imported top-level nodes go under; else the workspace.
	Parent string
	// Progress receives the import's progress; nil writes none.
	Progress *Progress
}

// execute writes a plan. A node whose parent failed is reported and left out, with its
// subtree; ctx cancelled stops between nodes, each node being whole or absent.
func execute(ctx context.Context, svc *service.Service, p *quire.Principal, fsys fs.FS, pl *plan, sum *Summary, prog *Progress) error {
	prog.start(len(pl.files) + len(pl.nodes))
	failed := map[string]bool{}
	report := func(source, id string, err error) {
		failed[id] = true
		sum.fail(source, err)
		prog.failed(source, reason(err))
	}
	for _, f := range pl.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		prog.step()
		if err := restoreFile(ctx, svc, p, fsys, f); err != nil {
			report(f.Source, f.File.ID, err)
		} else {
			sum.Files++
		}
	}
	for _, n := range pl.nodes {
		if err := ctx.Err(); err != nil {
			return err
		}
		prog.step()
		if failed[n.Node.ParentID] {
			report(n.Source, n.Node.ID, fmt.Errorf("its parent was not imported"))
			continue
		}
		if n.load != nil {
			if err := n.load(&n.RestoredNode); err != nil {
				report(n.Source, n.Node.ID, err)
				continue
			}
		}
		restored, err := svc.RestoreNode(ctx, p, n.RestoredNode)
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			report(n.Source, n.Node.ID, err)
		case restored:
			sum.count(n.Node)
		default:
			sum.Skipped++
		}
	}
	return nil
}

func restoreFile(ctx context.Context, svc *service.Service, p *quire.Principal, fsys fs.FS, f planFile) error {
	r, err := fsys.Open(f.Source)
	if err != nil {
		return err
	}
	defer r.Close()
	st, err := r.Stat()
	if err != nil {
		return err
	}
	f.File.Size = st.Size()
	if f.File.Name == "" {
		f.File.Name = path.Base(f.Source)
	}
	if f.File.ContentType == "" {
		f.File.ContentType = contentType(f.File.Name)
	}
	_, err = svc.RestoreFile(ctx, p, f.File, io.Reader(r))
	return err
}

func contentType(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// derivedID is the id an importer gives what it reads from a plain folder or a Notion export:
// made from where the import goes and the thing's place in the source, so that a re-run of
// the same import finds what the first run wrote instead of writing it twice.
func derivedID(parts ...string) string {
	h := sha256.New()
	for _, s := range parts {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	b := h.Sum(nil)[:16]
	b[6] = (b[6] & 0x0f) | 0x80 // version 8: a custom UUID
	b[8] = (b[8] & 0x3f) | 0x80
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}
