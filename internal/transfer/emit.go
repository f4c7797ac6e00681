package transfer

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/markdown"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// emitter turns items into a plan: ids derived from where the import goes and each item's
// place in the source, links between files made page mentions, and linked or attached files
// made uploads.
type emitter struct {
	pl      *plan
	seed    string
	sum     *Summary
	ids     map[string]*item  // source path (file or folder) → the item it is
	files   map[string]string // attachment path → upload id
	used    map[string]bool   // attachments some page shows
	content map[*item][]*blocks.Block
	now     int64  // the creation time of everything imported
	by      string // and its creator
}

// readTree reads a folder of Markdown or a Notion export into a plan.
func readTree(fsys fs.FS, p *quire.Principal, opts Options, sum *Summary, notion bool) (*plan, error) {
	r := &treeReader{fsys: fsys, notion: notion, sum: sum}
	root := &item{kind: "root", dir: "."}
	r.dir(".", root)
	e := &emitter{pl: &plan{}, seed: p.WorkspaceID() + "/" + opts.Parent, sum: sum, ids: map[string]*item{},
		files: map[string]string{}, used: map[string]bool{}, content: map[*item][]*blocks.Block{},
		now: quire.NowMillis(), by: p.Token.OwnerID}
	var all []*item
	var index func(it *item, row int)
	index = func(it *item, row int) {
		all = append(all, it)
		it.id = derivedID(e.seed, it.source)
		if it.kind == "record" {
			// Records list in id order: the row's number leads, so they keep the CSV's.
			it.id = fmt.Sprintf("%08x", row) + it.id[8:]
		}
		e.ids[it.source] = it
		if it.dir != "" {
			e.ids[it.dir] = it
		}
		if twin, ok := strings.CutSuffix(it.source, "_all.csv"); ok {
			e.ids[twin+".csv"] = it // Notion links the database by its other CSV
		}
		for _, f := range it.attached {
			e.files[f] = derivedID(e.seed, "file", f)
		}
		for i, c := range it.children {
			index(c, i)
		}
	}
	index(root, 0)
	// Every page is parsed before any is written, so an attachment one page links to is not
	// also added to the page whose folder holds it.
	for _, it := range all {
		if it.kind == "page" || it.kind == "record" {
			e.content[it] = e.blocks(it)
		}
	}
	parent := &quire.Node{ParentType: quire.ParentWorkspace}
	if opts.Parent != "" {
		parent = &quire.Node{ParentType: quire.ParentPage, ParentID: opts.Parent}
	}
	for _, c := range root.children {
		e.emit(c, parent.ParentType, parent.ParentID, nil)
	}
	for _, f := range root.attached {
		if !e.used[f] {
			sum.fail(f, errNoPage)
		}
	}
	return e.pl, nil
}

var errNoPage = &quire.Error{Code: quire.CodeValidation, Message: "An attachment outside every page's folder, which no page links to, has no page to go in."}

// upload adds attachment f to the plan once and returns its id.
func (e *emitter) upload(f string) string {
	if !e.used[f] {
		e.used[f] = true
		e.pl.files = append(e.pl.files, planFile{Source: f, File: quire.File{ID: e.files[f], Name: path.Base(f)}})
	}
	return e.files[f]
}

// emit adds item it (under parent, of type ptype) and its children to the plan.
func (e *emitter) emit(it *item, ptype, parent string, schema quire.Schema) {
	n := &quire.Node{ID: it.id, Object: quire.ObjectPage, PageType: quire.PageTypePage, ParentType: ptype, ParentID: parent,
		Title: blocks.AppendRichText(nil, blocks.Plain(it.title)), CreatedMs: e.now, CreatedBy: e.by, EditedMs: e.now, EditedBy: e.by}
	if it.icon != "" {
		var v any = map[string]any{"type": "emoji", "emoji": it.icon}
		if strings.HasPrefix(it.icon, "{") {
			_ = json.Unmarshal([]byte(it.icon), &v)
		}
		var pr quire.Problems
		n.Icon = blocks.DecodePageIcon(&pr, "icon", v, true)
	}
	rn := service.RestoredNode{Node: n}
	childType := quire.ParentPage
	switch it.kind {
	case "folder":
		n.PageType = quire.PageTypeFolder
		for _, f := range it.attached {
			if !e.used[f] {
				e.sum.fail(f, &quire.Error{Code: quire.CodeValidation, Message: "A folder holds pages only; link the file from a page."})
			}
		}
	case "database":
		n.Object, n.PageType = quire.ObjectDatabase, quire.PageTypeDatabase
		rows := make([]map[string]string, len(it.children))
		for i, c := range it.children {
			rows[i] = c.values
		}
		schema = inferSchema(it.id, it.columns, rows)
		n.Properties, _ = properties.MarshalSchema(schema)
		childType = quire.ParentDatabase
	case "record":
		n.Properties = properties.MarshalValues(rowValues(schema, it.values))
	}
	if it.kind == "page" || it.kind == "record" {
		bs := e.content[it]
		for _, f := range it.attached {
			if !e.used[f] {
				bs = append(bs, attachmentBlock(f, e.upload(f)))
			}
		}
		rn.Blocks = storedBlocks(it.id, bs)
	}
	e.pl.nodes = append(e.pl.nodes, planNode{Source: it.source, RestoredNode: rn})
	for _, c := range it.children {
		e.emit(c, childType, it.id, schema)
	}
}

// blocks parses a page's Markdown and resolves its relative links: to another file, a mention
// of its page; to an attachment, an upload.
func (e *emitter) blocks(it *item) []*blocks.Block {
	if len(it.body) == 0 {
		return nil
	}
	dir := path.Dir(it.source)
	bs := markdown.Parse(it.body)
	var fix func(bs []*blocks.Block) []*blocks.Block
	fix = func(bs []*blocks.Block) []*blocks.Block {
		for i, b := range bs {
			c := &b.Content
			c.RichText, c.Caption = e.links(c.RichText, dir), e.links(c.Caption, dir)
			for j := range c.Cells {
				c.Cells[j] = e.links(c.Cells[j], dir)
			}
			if f := c.File; f != nil && f.Type == "external" {
				if target, ok := relative(dir, f.URL); ok {
					if _, known := e.files[target]; known {
						c.File = &blocks.FileSource{Type: "file_upload", ID: e.upload(target)}
					} else {
						e.sum.fail(it.source, &quire.Error{Code: quire.CodeNotFound, Message: "It shows " + f.URL + ", which is not in the import."})
						bs[i] = &blocks.Block{Type: "paragraph", Content: blocks.Content{RichText: blocks.Plain(f.URL)}}
						continue
					}
				}
			}
			b.Children = fix(b.Children)
		}
		return bs
	}
	return fix(bs)
}

// links turns links to files of the import into mentions of their pages; a link to an
// attachment or to nothing the import has keeps its text only.
func (e *emitter) links(rt blocks.RichText, dir string) blocks.RichText {
	for i, x := range rt {
		if x.Type != "text" || x.Text == nil || x.Text.Link == nil {
			continue
		}
		target, ok := relative(dir, x.Text.Link.URL)
		if !ok {
			continue
		}
		if to := e.ids[target]; to != nil && to.kind != "root" {
			kind := "page"
			if to.kind == "database" {
				kind = "database"
			}
			rt[i] = blocks.Item{Type: "mention", Mention: &blocks.Mention{Type: kind, ID: to.id},
				Annotations: x.Annotations, PlainText: x.Text.Content}
			continue
		}
		rt[i].Text.Link, rt[i].Href = nil, ""
	}
	return rt
}

// relative resolves a link written in a file of folder dir to a path of the source, when it
// is relative.
func relative(dir, link string) (string, bool) {
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" || strings.HasPrefix(u.Path, "/") {
		return "", false
	}
	return path.Join(dir, u.Path), true
}

// attachmentBlock shows an attachment no page links to: an image, or a file.
func attachmentBlock(p, id string) *blocks.Block {
	src := &blocks.FileSource{Type: "file_upload", ID: id}
	if strings.HasPrefix(contentType(p), "image/") {
		return &blocks.Block{Type: "image", Content: blocks.Content{File: src}}
	}
	return &blocks.Block{Type: "file", Content: blocks.Content{File: src, Name: path.Base(p)}}
}

// storedBlocks gives parsed blocks ids derived from their page and place, in stored form.
func storedBlocks(page string, bs []*blocks.Block) []*service.StoredBlock {
	var conv func(bs []*blocks.Block, at string) []*service.StoredBlock
	conv = func(bs []*blocks.Block, at string) []*service.StoredBlock {
		out := make([]*service.StoredBlock, len(bs))
		for i, b := range bs {
			place := at + "/" + strconv.Itoa(i)
			out[i] = &service.StoredBlock{ID: derivedID(page, place), Type: b.Type, Content: blocks.MarshalContent(b),
				Children: conv(b.Children, place)}
		}
		return out
	}
	return conv(bs, "")
}
