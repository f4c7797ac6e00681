package transfer

import (
	"bytes"
	"encoding/csv"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// A folder of Markdown files and a Notion export are read the same way, into a tree of items:
// a .md file is a page, a folder beside it (same name) holds the page's children, any other
// folder is a folder page, a .csv file is a database whose folder beside it holds its records
// as pages, and any other file is an attachment of the page whose folder it is in. A Notion
// export names each page "Title <32 hex digits>", and writes its title as the first line and a
// record's values after it; a plain folder may start a file with front matter, whose title and
// icon are the page's, and whose other fields make the folder's pages records of a database.

// item is one page, folder, database or record read from the source.
type item struct {
	kind     string // "page", "folder", "database", "record"
	source   string // its .md file, folder or .csv file
	dir      string // the folder whose files are its children and attachments ("" for none)
	title    string
	icon     string
	body     []byte            // Markdown (pages and records)
	values   map[string]string // a record's cells by column; a page's front matter fields
	columns  []string          // a database's columns, title first
	children []*item
	attached []string // files in dir
	id       string
}

// treeReader reads a source into items, reporting files it cannot read.
type treeReader struct {
	fsys   fs.FS
	notion bool
	sum    *Summary
}

// dir reads folder p's entries as children of parent.
func (r *treeReader) dir(p string, parent *item) {
	entries, err := fs.ReadDir(r.fsys, p)
	if err != nil {
		r.sum.fail(p, err)
		return
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	var props []*item // pages with front-matter fields: the records of a database
	for _, e := range entries {
		name, full := e.Name(), path.Join(p, e.Name())
		stem := strings.TrimSuffix(strings.TrimSuffix(name, ".md"), ".csv")
		switch {
		case strings.HasPrefix(name, "."):
		case e.IsDir():
			if names[name+".md"] || names[name+".csv"] || names[name+"_all.csv"] {
				continue // read with its page or database
			}
			f := &item{kind: "folder", source: full, dir: full, title: r.title(name)}
			r.dir(full, f)
			parent.children = append(parent.children, f)
		case strings.HasSuffix(name, ".md"):
			pg := r.page(full, stem)
			if pg == nil && names[stem] {
				// The page is reported; its children still come, in a folder of its name.
				pg = &item{kind: "folder", source: full}
			}
			if pg == nil {
				continue
			}
			if pg.title == "" {
				pg.title = r.title(stem)
			}
			if names[stem] {
				pg.dir = path.Join(p, stem)
				r.dir(pg.dir, pg)
			}
			if len(pg.values) > 0 && !r.notion {
				props = append(props, pg)
				continue
			}
			parent.children = append(parent.children, pg)
		case strings.HasSuffix(name, ".csv"):
			if all := strings.TrimSuffix(name, ".csv") + "_all.csv"; names[all] {
				continue // Notion writes the view's rows and all rows: all rows it is
			}
			stem = strings.TrimSuffix(stem, "_all")
			if db := r.database(full, path.Join(p, stem), names[stem]); db != nil {
				parent.children = append(parent.children, db)
			}
		default:
			parent.attached = append(parent.attached, full)
		}
	}
	if len(props) > 0 {
		parent.children = append([]*item{recordsOf(p, parent, props)}, parent.children...)
	}
}

// title is a page's title from its file or folder name.
func (r *treeReader) title(name string) string {
	if m := notionName.FindStringSubmatch(name); r.notion && m != nil {
		return m[1]
	}
	return strings.TrimSuffix(name, ".md")
}

// page reads a .md file.
func (r *treeReader) page(p, stem string) *item {
	raw, err := fs.ReadFile(r.fsys, p)
	if err != nil {
		r.sum.fail(p, err)
		return nil
	}
	it := &item{kind: "page", source: p, title: r.title(stem)}
	body, fields := frontMatter(raw)
	for k, v := range fields {
		switch k {
		case "title":
			it.title = v
		case "icon":
			it.icon = v
		case "id", "parent", "type", "properties": // what an export writes about itself
		default:
			if it.values == nil {
				it.values = map[string]string{}
			}
			it.values[k] = v
		}
	}
	if r.notion {
		body = notionBody(body, it.title)
	}
	it.body = body
	return it
}

// frontMatter splits "---\nkey: value\n---\n" off the start of a file. Values are plain
// strings, quoted or not.
func frontMatter(raw []byte) ([]byte, map[string]string) {
	raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
	if !bytes.HasPrefix(raw, []byte("---\n")) {
		return raw, nil
	}
	end := bytes.Index(raw[4:], []byte("\n---\n"))
	if end < 0 {
		return raw, nil
	}
	fields := map[string]string{}
	for _, line := range strings.Split(string(raw[4:4+end]), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) == "" {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		fields[strings.TrimSpace(k)] = v
	}
	return raw[4+end+5:], fields
}

// notionBody drops what Notion writes before a page's content: "# Title", and a record's
// "Property: value" lines (its CSV has them).
func notionBody(body []byte, title string) []byte {
	s := strings.TrimLeft(string(body), "\n")
	if first, rest, _ := strings.Cut(s, "\n"); strings.TrimSpace(strings.TrimPrefix(first, "# ")) == title && strings.HasPrefix(first, "# ") {
		s = strings.TrimLeft(rest, "\n")
	}
	if para, rest, _ := strings.Cut(s, "\n\n"); para != "" {
		lines := strings.Split(para, "\n")
		props := true
		for _, l := range lines {
			if k, _, ok := strings.Cut(l, ": "); !ok || strings.ContainsAny(k, "#*[`>|") || len(k) > 60 {
				props = false
			}
		}
		if props {
			s = rest
		}
	}
	return []byte(s)
}

// database reads a .csv file and the records' pages in folder dir when it exists.
func (r *treeReader) database(p, dir string, hasDir bool) *item {
	raw, err := fs.ReadFile(r.fsys, p)
	if err != nil {
		r.sum.fail(p, err)
		return nil
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(raw, []byte("\ufeff")))).ReadAll()
	if err != nil || len(rows) == 0 || len(rows[0]) == 0 {
		if err == nil {
			err = errEmptyCSV
		}
		r.sum.fail(p, err)
		return nil
	}
	db := &item{kind: "database", source: p, title: r.title(strings.TrimSuffix(strings.TrimSuffix(path.Base(p), ".csv"), "_all")), columns: rows[0]}
	pages := &item{}
	if hasDir {
		db.dir = dir
		r.dir(dir, pages)
	}
	byTitle := map[string][]*item{}
	for _, pg := range pages.children {
		if pg.kind == "page" {
			byTitle[pg.title] = append(byTitle[pg.title], pg)
		}
	}
	for _, row := range rows[1:] {
		rec := &item{kind: "record", source: p, values: map[string]string{}}
		for i, col := range db.columns {
			if i < len(row) {
				rec.values[col] = row[i]
			}
		}
		rec.title = rec.values[db.columns[0]]
		if list := byTitle[rec.title]; len(list) > 0 {
			pg := list[0]
			byTitle[rec.title] = list[1:]
			rec.source, rec.dir, rec.body, rec.children, rec.attached = pg.source, pg.dir, pg.body, pg.children, pg.attached
		} else {
			rec.source = p + "#" + rec.title
		}
		db.children = append(db.children, rec)
	}
	return db
}

// recordsOf makes the database of a folder's pages that have front-matter fields.
func recordsOf(dir string, parent *item, pages []*item) *item {
	title := parent.title
	if title == "" {
		title = path.Base(dir)
	}
	db := &item{kind: "database", source: dir + "/", title: title, columns: []string{"Name"}}
	seen := map[string]bool{}
	for _, pg := range pages {
		pg.kind = "record"
		pg.values["Name"] = pg.title
		for _, k := range slices.Sorted(maps.Keys(pg.values)) {
			if !seen[k] && k != "Name" {
				seen[k] = true
				db.columns = append(db.columns, k)
			}
		}
		db.children = append(db.children, pg)
	}
	return db
}

var errEmptyCSV = &quire.Error{Code: quire.CodeValidation, Message: "The CSV file has no header row."}
