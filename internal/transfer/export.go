package transfer

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"path"
	"regexp"
	"strings"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// The export format, a folder (or the same tree in a zip):
//
//	quire-export.json          the tree: every node in stored form, parents first, and the files
//	pages/Title <id>.md        a page: front matter (id, parent, icon, properties) and Markdown
//	pages/Title <id>/          the page's child pages and databases
//	pages/…/DB <id>/schema.json, records.csv, Record <id>.md    a database
//	pages/…/Map <id>.md, Map <id>.mindmap.json                 a mind map as a list and as JSON
//	content/<id>.json          a page's blocks in stored form with their ids
//	files/<id>/<name>          an upload's bytes
//
// quire-export.json and content/ are what an import reads; the rest is for people and tools.
// Nothing in it depends on when it was written, so two exports of the same content are the
// same bytes.

// Manifest is quire-export.json.
type Manifest struct {
	Format  string      `json:"format"` // "quire-export"
	Version int         `json:"version"`
	Nodes   []*Entry    `json:"nodes"`
	Files   []FileEntry `json:"files"`
}

// Entry is one node of the tree in stored form.
type Entry struct {
	ID          string          `json:"id"`
	Object      string          `json:"object"`
	PageType    string          `json:"page_type"`
	ParentType  string          `json:"parent_type"`
	ParentID    string          `json:"parent_id,omitempty"`
	Path        string          `json:"path"`
	Title       json.RawMessage `json:"title"`
	Icon        json.RawMessage `json:"icon,omitempty"`
	Cover       json.RawMessage `json:"cover,omitempty"`
	Description json.RawMessage `json:"description,omitempty"`
	IsInline    bool            `json:"is_inline,omitempty"`
	Properties  json.RawMessage `json:"properties,omitempty"` // a database's schema, a record's values
	Number      int64           `json:"number,omitempty"`
	HasContent  bool            `json:"has_content,omitempty"` // content/<id>.json exists
	Views       []ViewEntry     `json:"views,omitempty"`
	MindMap     *MindMapEntry   `json:"mind_map,omitempty"`
	CreatedMs   int64           `json:"created_ms"`
	CreatedBy   string          `json:"created_by"`
	EditedMs    int64           `json:"edited_ms"`
	EditedBy    string          `json:"edited_by"`
}

// ViewEntry is a database view in stored form.
type ViewEntry struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Type string          `json:"type"`
	Spec json.RawMessage `json:"spec"`
}

// FileEntry is an upload.
type FileEntry struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Path        string `json:"path"`
	CreatedMs   int64  `json:"created_ms"`
}

const manifestName = "quire-export.json"

// exporter walks a workspace depth first, writing as it goes; only the manifest waits.
type exporter struct {
	svc   *service.Service
	p     *quire.Principal
	out   Sink
	man   Manifest
	files map[string]string // id → path written
	sum   *Summary
	prog  *Progress
}

// Export writes the workspace of p (its content that is not in trash) to out.
func Export(ctx context.Context, svc *service.Service, p *quire.Principal, out Sink, prog *Progress) (*Summary, error) {
	e := &exporter{svc: svc, p: p, out: out, files: map[string]string{}, sum: &Summary{Failed: []Failure{}}, prog: prog,
		man: Manifest{Format: "quire-export", Version: 1, Nodes: []*Entry{}, Files: []FileEntry{}}}
	top, err := svc.TopLevelNodes(ctx, p)
	if err != nil {
		return nil, err
	}
	counts, err := svc.Workspace(ctx, p)
	if err != nil {
		return nil, err
	}
	prog.start(int(counts.Counts.Pages + counts.Counts.Databases))
	for _, n := range top {
		if err := e.node(ctx, n, "pages"); err != nil {
			return nil, err
		}
	}
	b, err := json.MarshalIndent(e.man, "", " ")
	if err != nil {
		return nil, err
	}
	if err := out.write(manifestName, append(b, '\n')); err != nil {
		return nil, err
	}
	prog.finish()
	return e.sum, out.close()
}

// fileName is a node's name in the tree: its title made safe for any file system, and its id.
func fileName(n *quire.Node) string {
	t := safeName(strings.TrimSpace(n.TitlePlain))
	if rs := []rune(t); len(rs) > 60 {
		t = strings.TrimSpace(string(rs[:60]))
	}
	if t = strings.Trim(t, ". "); t == "" {
		t = "Untitled"
	}
	return t + " " + n.ID
}

func (e *exporter) entry(n *quire.Node, p string) *Entry {
	en := &Entry{ID: n.ID, Object: n.Object, PageType: n.PageType, ParentType: n.ParentType, ParentID: n.ParentID,
		Path: p, Title: n.Title, Icon: n.Icon, Cover: n.Cover, IsInline: n.IsInline,
		CreatedMs: n.CreatedMs, CreatedBy: n.CreatedBy, EditedMs: n.EditedMs, EditedBy: n.EditedBy}
	if n.Object == quire.ObjectDatabase || n.ParentType == quire.ParentDatabase {
		en.Properties = n.Properties
	}
	if n.ParentType == quire.ParentDatabase {
		// A record's values in full, as every record was stored before the short form: an
		// export reads the same to any version. Values that do not read go as they are.
		if long, err := properties.LongForm(n.Properties); err == nil {
			en.Properties = long
		}
		if title, err := blocks.LongRichText(n.Title); err == nil {
			en.Title = title
		}
	}
	if n.Object == quire.ObjectDatabase {
		en.Description = n.Description
	}
	e.man.Nodes = append(e.man.Nodes, en)
	e.sum.count(n)
	e.prog.step()
	return en
}

// node writes n and everything beneath it into dir.
func (e *exporter) node(ctx context.Context, n *quire.Node, dir string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	name := path.Join(dir, fileName(n))
	if n.Object == quire.ObjectDatabase {
		return e.database(ctx, n, name)
	}
	return e.page(ctx, n, name, 0)
}

// page writes a page, folder, mind map or record at name (.md added) and its children.
func (e *exporter) page(ctx context.Context, n *quire.Node, name string, number int64) error {
	en := e.entry(n, name+".md")
	en.Number = number
	var kids []string
	if n.PageType == quire.PageTypeMindMap {
		mm, err := e.svc.GetMindMap(ctx, e.p, n.ID)
		if err != nil {
			return err
		}
		en.MindMap = mindMapEntry(mm)
		b, _ := json.MarshalIndent(en.MindMap, "", " ")
		if err := e.out.write(name+".mindmap.json", append(b, '\n')); err != nil {
			return err
		}
	} else {
		tree, err := e.svc.ContentTree(ctx, e.p, n.ID)
		if err != nil {
			return err
		}
		if len(tree) > 0 {
			en.HasContent = true
			b, _ := json.MarshalIndent(tree, "", " ")
			if err := e.out.write("content/"+n.ID+".json", append(b, '\n')); err != nil {
				return err
			}
		}
		for _, b := range tree {
			if service.IsTransferMarker(b.Type) {
				kids = append(kids, b.ID)
			}
		}
		e.blockFiles(ctx, tree)
	}
	e.collectFiles(ctx, n.Icon, n.Cover, n.Properties)
	if err := e.markdown(ctx, n, name, number); err != nil {
		return err
	}
	for _, id := range kids {
		c, err := e.svc.StoredNode(ctx, e.p, id)
		if err != nil {
			return err
		}
		if c.Hidden() {
			continue
		}
		if err := e.node(ctx, c, name); err != nil {
			return err
		}
	}
	return nil
}

// markdown writes a page's front matter and Markdown, with its uploads linked to the files
// written beside it.
func (e *exporter) markdown(ctx context.Context, n *quire.Node, name string, number int64) error {
	var body bytes.Buffer
	if err := e.svc.ExportMarkdown(ctx, e.p, n.ID, &body, nil); err != nil {
		return err
	}
	var fm bytes.Buffer
	fm.WriteString("---\n")
	field(&fm, "id", n.ID)
	parent := n.ParentID
	if parent == "" {
		parent = "workspace"
	}
	field(&fm, "parent", parent)
	field(&fm, "type", kind(n))
	field(&fm, "title", n.TitlePlain)
	if len(n.Icon) > 0 {
		fm.WriteString("icon: " + string(n.Icon) + "\n")
	}
	if n.ParentType == quire.ParentDatabase {
		props, err := e.plainProperties(ctx, n, number)
		if err != nil {
			return err
		}
		b, _ := json.Marshal(props)
		fm.WriteString("properties: " + string(b) + "\n")
	}
	fm.WriteString("---\n\n")
	depth := strings.Count(name, "/")
	md := signedFile.ReplaceAllStringFunc(body.String(), func(u string) string {
		id := signedFile.FindStringSubmatch(u)[1]
		e.exportFile(ctx, id)
		if p := e.files[id]; p != "" {
			return strings.Repeat("../", depth) + p
		}
		return u
	})
	fm.WriteString(md)
	return e.out.write(name+".md", fm.Bytes())
}

// signedFile matches the signed download URL of an upload in exported Markdown (Quire's own or
// a presigned one): it changes with every export, so it is replaced by the file's path.
var signedFile = regexp.MustCompile(`[^\s()<>"]*?/(?:v2/files/)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:/content)?\?[^\s()<>"]*(?:signature|X-Amz-Signature)=[^\s()<>"]*`)

func field(b *bytes.Buffer, k, v string) {
	q, _ := json.Marshal(v)
	b.WriteString(k + ": " + string(q) + "\n")
}

func kind(n *quire.Node) string {
	if n.ParentType == quire.ParentDatabase {
		return "record"
	}
	return n.PageType
}

// plainProperties is a record's values by property name as plain text, as the CSV has them.
func (e *exporter) plainProperties(ctx context.Context, n *quire.Node, number int64) (map[string]string, error) {
	raw, err := e.svc.RenderedProperties(ctx, n, number)
	if err != nil {
		return nil, err
	}
	var props map[string]map[string]any
	if err := json.Unmarshal(raw, &props); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, v := range props {
		typ, _ := v["type"].(string)
		out[name] = plainValue(v[typ])
	}
	return out, nil
}

// database writes a database's folder: its schema, its records as CSV and as pages.
func (e *exporter) database(ctx context.Context, n *quire.Node, dir string) error {
	en := e.entry(n, dir+"/")
	e.collectFiles(ctx, n.Icon, n.Cover)
	views, err := e.svc.ListViews(ctx, e.p, n.ID, "", 100)
	if err != nil {
		return err
	}
	for _, v := range views.Items {
		en.Views = append(en.Views, ViewEntry{ID: v.Row.ID, Name: v.Row.Name, Type: v.Row.Type, Spec: v.Row.Spec})
	}
	schema, err := service.DatabaseSchema(n)
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(map[string]any{"id": n.ID, "title": n.TitlePlain, "properties": schema}, "", " ")
	if err := e.out.write(dir+"/schema.json", append(b, '\n')); err != nil {
		return err
	}
	var csvBuf bytes.Buffer
	w := csv.NewWriter(&csvBuf)
	header := []string{}
	for _, prop := range schema {
		header = append(header, prop.Name)
	}
	_ = w.Write(header)
	err = e.svc.EachRecord(ctx, e.p, n.ID, func(r *quire.Node, number int64) error {
		props, err := e.plainProperties(ctx, r, number)
		if err != nil {
			return err
		}
		row := make([]string, len(schema))
		for i, prop := range schema {
			row[i] = props[prop.Name]
		}
		_ = w.Write(row)
		return e.page(ctx, r, path.Join(dir, fileName(r)), number)
	})
	if err != nil {
		return err
	}
	w.Flush()
	return e.out.write(dir+"/records.csv", csvBuf.Bytes())
}

// storedRef finds uploads in stored JSON (icons, covers, record values).
var storedRef = regexp.MustCompile(`"file_upload",(?:"file_upload":\{)?"id":"([0-9a-f-]{36})"`)

func (e *exporter) collectFiles(ctx context.Context, raws ...json.RawMessage) {
	for _, raw := range raws {
		for _, m := range storedRef.FindAllSubmatch(raw, -1) {
			e.exportFile(ctx, string(m[1]))
		}
	}
}

// blockFiles exports the uploads of blocks, those Markdown does not show (a callout's icon) too.
func (e *exporter) blockFiles(ctx context.Context, bs []*service.StoredBlock) {
	for _, b := range bs {
		e.collectFiles(ctx, b.Content)
		e.blockFiles(ctx, b.Children)
	}
}

// exportFile writes an upload's bytes once; one that cannot be read is reported.
func (e *exporter) exportFile(ctx context.Context, id string) {
	if _, done := e.files[id]; done || !quire.ValidID(id) {
		return
	}
	f, r, err := e.svc.OpenStoredFile(ctx, e.p, id)
	if err != nil {
		e.files[id] = "" // not tried again
		e.sum.fail("files/"+id, err)
		e.prog.failed("files/"+id, reason(err))
		return
	}
	defer r.Close()
	p := "files/" + id + "/" + cmp.Or(safeName(f.Name), "file")
	if err := e.out.stream(p, r); err != nil {
		e.sum.fail(p, err)
		return
	}
	e.files[id] = p
	e.sum.Files++
	e.man.Files = append(e.man.Files, FileEntry{ID: id, Name: f.Name, ContentType: f.ContentType, Path: p, CreatedMs: f.CreatedMs})
}

func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, s)
	if strings.Trim(s, ".") == "" {
		return ""
	}
	return s
}
