package blocks

import (
	"encoding/json"
	"strconv"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// Decode reads the children array of a write request (`children` of POST /v2/pages, of PATCH
// /v2/blocks/:id/children, of a create mutation) at path, e.g. "children". parent is the
// block they will be appended to, nil for a page; it decides whether table rows or columns
// are allowed and how many cells a row needs. The error is nil or a *quire.Error: a
// validation_error listing every problem, or invalid_json when raw is not JSON.
func Decode(raw json.RawMessage, path string, parent *Block) ([]*Block, error) {
	v, err := jsonbody.ParseValue(raw)
	if err != nil {
		return nil, err
	}
	return DecodeValue(v, path, parent)
}

// DecodeValue is Decode for a value already parsed by encoding/json.
func DecodeValue(v any, path string, parent *Block) ([]*Block, error) {
	d := decoder{}
	parent = appendParent(parent)
	if parent != nil && !CanHaveChildren(parent) {
		d.p.Add(path, quire.ReasonInvalidValue, "A "+parent.Type+" block cannot have children.")
		return nil, d.p.Err()
	}
	bs := d.children(v, path, 0, parent, false)
	if d.count > MaxRequestBlocks {
		tooMany(&d.p, path, MaxRequestBlocks, d.count, "blocks in one request")
	}
	if err := d.p.Err(); err != nil {
		return nil, err
	}
	return bs, nil
}

// appendParent is the block whose children an append under parent checks: none under a page, a
// child page or a child database (appending to a child page appends to the page).
func appendParent(parent *Block) *Block {
	if parent != nil && (parent.Type == "child_page" || parent.Type == "child_database") {
		return nil
	}
	return parent
}

type decoder struct {
	p     quire.Problems
	count int
}

func (d *decoder) children(v any, path string, depth int, parent *Block, created bool) []*Block {
	a, ok := array(&d.p, path, v)
	if !ok {
		return nil
	}
	bs := make([]*Block, len(a))
	for i, e := range a {
		bs[i] = d.block(e, jsonbody.Index(path, i), depth)
	}
	checkChildren(&d.p, path, parent, bs, created)
	out := bs[:0]
	for _, b := range bs {
		if b != nil {
			out = append(out, b)
		}
	}
	return out
}

func (d *decoder) block(v any, path string, depth int) *Block {
	d.count++
	m, ok := jsonbody.Object(&d.p, path, v)
	if !ok {
		return nil
	}
	typ, ok := blockType(&d.p, path, m)
	if !ok {
		jsonbody.Unknown(&d.p, path, m, append(Types, "object", "type", "children")...)
		return nil
	}
	jsonbody.Unknown(&d.p, path, m, "object", "type", typ, "children")
	if s, ok := jsonbody.Str(&d.p, path, m, "object"); ok && s != "block" {
		d.p.Add(jsonbody.Join(path, "object"), quire.ReasonInvalidValue, "object is block.")
	}
	body, present := m[typ]
	if !present {
		d.p.Add(jsonbody.Join(path, typ), quire.ReasonRequired, "Field \""+typ+"\" is required.")
		return nil
	}
	tp := jsonbody.Join(path, typ)
	bm, ok := jsonbody.Object(&d.p, tp, body)
	if !ok {
		return nil
	}
	b := &Block{Type: typ}
	content(&d.p, tp, b, bm, false)
	// Children nest inside the type object (Notion's shape) or beside type (the original
	// service's); errors name the place they were sent.
	cv, hasChildren := bm["children"]
	cp := jsonbody.Join(tp, "children")
	outer, beside := m["children"]
	switch {
	case beside && hasChildren:
		d.p.Add(jsonbody.Join(path, "children"), quire.ReasonInvalidValue, "Send children beside type or inside "+typ+", not both.")
		return b
	case beside:
		cv, hasChildren, cp = outer, true, jsonbody.Join(path, "children")
		b.ChildrenBeside = true
	}
	switch {
	case !hasChildren:
		if info := types[typ]; info.container {
			d.p.Add(cp, quire.ReasonRequired, "A "+typ+" is created with its children.")
		}
	case !types[typ].children:
		if beside { // inside the type object it is already an unknown_field
			d.p.Add(cp, quire.ReasonInvalidValue, "A "+typ+" block cannot have children.")
		}
	case !CanHaveChildren(b):
		d.p.Add(cp, quire.ReasonInvalidValue, "Only a toggleable heading has children.")
	case depth >= MaxRequestDepth:
		d.p.Add(cp, quire.ReasonInvalidValue, "Children nest at most two levels deep in one request.")
	default:
		b.Children = d.children(cv, cp, depth+1, b, true)
	}
	return b
}

// blockType reads "type", or infers it from the one block-type key when it is left out.
func blockType(p *quire.Problems, path string, m map[string]any) (string, bool) {
	typ, ok := jsonbody.Str(p, path, m, "type")
	if _, present := m["type"]; present && !ok {
		return "", false
	}
	if !ok {
		if typ = inferKind(m, Types); typ == "" {
			p.Add(jsonbody.Join(path, "type"), quire.ReasonRequired, "A block needs a type.")
			return "", false
		}
	}
	if !unsupported(p, jsonbody.Join(path, "type"), typ) {
		return "", false
	}
	return typ, true
}

// unsupported checks that blocks of type typ may be written; an unknown or read-only type is
// the original service's unsupported_block_type (400), named at path (the "type" field).
func unsupported(p *quire.Problems, path, typ string) bool {
	switch {
	case !Known(typ):
		p.Unsupported(quire.CodeUnsupportedBlockType, path, quire.ReasonInvalidValue, "Unknown block type "+strconv.Quote(typ)+".")
	case !Writable(typ):
		p.Unsupported(quire.CodeUnsupportedBlockType, path, quire.ReasonInvalidValue, "A "+typ+" block is made by creating the page or database.")
	default:
		return true
	}
	return false
}

// fields lists the keys of a type object, children aside.
func fields(typ string) []string {
	info := types[typ]
	var f []string
	if info.richText {
		f = append(f, "rich_text")
	}
	if info.color {
		f = append(f, "text_color", "background_color", "color")
	}
	if info.caption {
		f = append(f, "caption")
	}
	if info.textAlign {
		f = append(f, "text_align")
	}
	if info.captionAlign {
		f = append(f, "caption_align")
	}
	if info.media {
		f = append(f, "type", "external", "file_upload", "file")
	}
	switch typ {
	case "heading_1", "heading_2", "heading_3":
		f = append(f, "is_toggleable")
	case "to_do":
		f = append(f, "checked")
	case "callout":
		f = append(f, "icon")
	case "code":
		f = append(f, "language")
	case "equation":
		f = append(f, "expression")
	case "file":
		f = append(f, "name")
	case "bookmark", "embed":
		f = append(f, "url")
	case "table":
		f = append(f, "table_width", "has_column_header", "has_row_header")
	case "table_row":
		f = append(f, "cells")
	case "link_to_page":
		f = append(f, "type", "page_id", "database_id")
	}
	return f
}

// content reads the type object m at path into b. On an update b holds the current content,
// fields the body leaves out keep their values, and nothing is required.
func content(p *quire.Problems, path string, b *Block, m map[string]any, update bool) {
	info := types[b.Type]
	allowed := fields(b.Type)
	if info.children && !update {
		allowed = append(allowed, "children")
	}
	jsonbody.Unknown(p, path, m, allowed...)
	c := &b.Content
	if info.richText {
		if v, present := m["rich_text"]; present {
			c.RichText = DecodeRichText(p, jsonbody.Join(path, "rich_text"), v)
		} else if !update {
			p.Add(jsonbody.Join(path, "rich_text"), quire.ReasonRequired, "Field \"rich_text\" is required.")
		}
	}
	if info.color {
		decodeColors(p, path, m, &c.TextColor, &c.BackgroundColor)
	}
	if info.caption {
		if v, present := m["caption"]; present {
			c.Caption = DecodeRichText(p, jsonbody.Join(path, "caption"), v)
		}
	}
	if info.media {
		decodeMedia(p, path, m, c, update)
	}
	if info.textAlign {
		decodeAlign(p, path, m, "text_align", &c.TextAlign)
	}
	if info.captionAlign {
		decodeAlign(p, path, m, "caption_align", &c.CaptionAlign)
	}
	switch b.Type {
	case "heading_1", "heading_2", "heading_3":
		if v, ok := boolean(p, path, m, "is_toggleable"); ok {
			c.IsToggleable = v
		}
	case "to_do":
		if v, ok := boolean(p, path, m, "checked"); ok {
			c.Checked = v
		}
	case "callout":
		if v, present := m["icon"]; present {
			c.Icon = decodeIcon(p, jsonbody.Join(path, "icon"), v)
		}
	case "code":
		if s, ok := jsonbody.Str(p, path, m, "language"); ok {
			if !languages[s] {
				p.Add(jsonbody.Join(path, "language"), quire.ReasonInvalidValue, "Unknown code language.")
			}
			c.Language = s
		}
	case "equation":
		if s, ok := expression(p, path, m, update); ok {
			c.Expression = s
		}
	case "file":
		if s, ok := jsonbody.Str(p, path, m, "name"); ok {
			checkLen(p, jsonbody.Join(path, "name"), s, MaxTextLength)
			c.Name = s
		}
	case "bookmark", "embed":
		if s, ok := jsonbody.Str(p, path, m, "url"); ok {
			checkURL(p, jsonbody.Join(path, "url"), s)
			c.URL = s
		} else if _, present := m["url"]; !present && !update {
			p.Add(jsonbody.Join(path, "url"), quire.ReasonRequired, "Field \"url\" is required.")
		}
	case "table":
		decodeTable(p, path, m, c, update)
	case "table_row":
		decodeCells(p, path, m, c, update)
	case "link_to_page":
		decodeLinkToPage(p, path, m, c, update)
	}
}

// decodeAlign reads text_align or caption_align: one of Alignments, or null to clear it (an
// update's way back to "not set").
func decodeAlign(p *quire.Problems, path string, m map[string]any, key string, dst *string) {
	v, present := m[key]
	switch {
	case !present:
	case v == nil:
		*dst = ""
	default:
		if s, ok := jsonbody.Enum(p, jsonbody.Join(path, key), v, Alignments); ok {
			*dst = s
		}
	}
}

func expression(p *quire.Problems, path string, m map[string]any, update bool) (string, bool) {
	var s string
	var ok bool
	if update {
		s, ok = jsonbody.Str(p, path, m, "expression")
	} else {
		s, ok = jsonbody.RequiredStr(p, path, m, "expression")
	}
	if ok {
		checkLen(p, jsonbody.Join(path, "expression"), s, MaxExpressionLength)
	}
	return s, ok
}

func decodeTable(p *quire.Problems, path string, m map[string]any, c *Content, update bool) {
	w, ok := integer(p, path, m, "table_width")
	switch {
	case ok && update && w != c.TableWidth:
		p.Add(jsonbody.Join(path, "table_width"), quire.ReasonImmutable, "A table's width is set when it is created.")
	case ok && (w < 1 || w > MaxArray):
		outOfRange(p, jsonbody.Join(path, "table_width"), 1, MaxArray, w, "table_width is 1 to 100.")
		c.TableWidth = 0 // rows are not measured against a width that is wrong anyway
	case ok:
		c.TableWidth = w
	case !update:
		if _, present := m["table_width"]; !present {
			p.Add(jsonbody.Join(path, "table_width"), quire.ReasonRequired, "Field \"table_width\" is required.")
		}
	}
	if v, ok := boolean(p, path, m, "has_column_header"); ok {
		c.HasColumnHeader = v
	}
	if v, ok := boolean(p, path, m, "has_row_header"); ok {
		c.HasRowHeader = v
	}
}

func decodeCells(p *quire.Problems, path string, m map[string]any, c *Content, update bool) {
	v, present := m["cells"]
	if !present {
		if !update {
			p.Add(jsonbody.Join(path, "cells"), quire.ReasonRequired, "Field \"cells\" is required.")
		}
		return
	}
	cp := jsonbody.Join(path, "cells")
	a, ok := array(p, cp, v)
	if !ok {
		return
	}
	if update && len(a) != len(c.Cells) {
		// A stored row always has its table's width, so the width needs no lookup.
		p.Add(cp, quire.ReasonInvalidValue, "A row has as many cells as its table is wide.")
	}
	cells := make([]RichText, len(a))
	for i, e := range a {
		cells[i] = DecodeRichText(p, jsonbody.Index(cp, i), e)
		if cells[i] == nil {
			cells[i] = RichText{}
		}
	}
	c.Cells = cells
}

func decodeLinkToPage(p *quire.Problems, path string, m map[string]any, c *Content, update bool) {
	typ, ok := jsonbody.Str(p, path, m, "type")
	if _, present := m["type"]; present && !ok {
		return
	}
	if !ok {
		typ = inferKind(m, []string{"page_id", "database_id"})
	}
	switch typ {
	case "page_id", "database_id":
	case "":
		p.Add(jsonbody.Join(path, "page_id"), quire.ReasonRequired, "A link_to_page names a page_id or a database_id.")
		return
	default:
		p.Add(jsonbody.Join(path, "type"), quire.ReasonInvalidValue, "A link_to_page's type is page_id or database_id.")
		return
	}
	other := map[string]string{"page_id": "database_id", "database_id": "page_id"}[typ]
	if _, present := m[other]; present {
		p.Add(jsonbody.Join(path, other), quire.ReasonInvalidValue, "A link_to_page names one target.")
	}
	id, ok := jsonbody.RequiredStr(p, path, m, typ)
	if !ok {
		return
	}
	checkID(p, jsonbody.Join(path, typ), id)
	c.PageID, c.DatabaseID = "", ""
	if typ == "page_id" {
		c.PageID = id
	} else {
		c.DatabaseID = id
	}
}

var fileKinds = []string{"external", "file_upload", "file"}

// decodeMedia reads the file of image, file, pdf and video: external, file_upload, or the
// file object an upload reads back as.
func decodeMedia(p *quire.Problems, path string, m map[string]any, c *Content, update bool) {
	typ, ok := jsonbody.Str(p, path, m, "type")
	if _, present := m["type"]; present && !ok {
		return
	}
	if !ok {
		typ = inferKind(m, fileKinds)
		if typ == "" {
			if !update || m["external"] != nil || m["file_upload"] != nil || m["file"] != nil {
				p.Add(jsonbody.Join(path, "external"), quire.ReasonRequired, "A file is external, file_upload or file.")
			}
			return
		}
	}
	if f := decodeFile(p, path, m, typ); f != nil {
		c.File = f
	}
}

// decodeFile reads {type, <type>: {…}} of an icon or a media block.
func decodeFile(p *quire.Problems, path string, m map[string]any, typ string) *FileSource {
	switch typ {
	case "external", "file_upload", "file":
	default:
		p.Add(jsonbody.Join(path, "type"), quire.ReasonInvalidValue, "A file's type is external, file_upload or file.")
		return nil
	}
	for _, k := range fileKinds {
		if _, present := m[k]; present && k != typ {
			p.Add(jsonbody.Join(path, k), quire.ReasonInvalidValue, "A file has one source.")
		}
	}
	v, present := m[typ]
	if !present {
		p.Add(jsonbody.Join(path, typ), quire.ReasonRequired, "Field \""+typ+"\" is required.")
		return nil
	}
	fp := jsonbody.Join(path, typ)
	fm, ok := jsonbody.Object(p, fp, v)
	if !ok {
		return nil
	}
	f := &FileSource{Type: typ}
	switch typ {
	case "external":
		jsonbody.Unknown(p, fp, fm, "url")
		if f.URL, ok = jsonbody.RequiredStr(p, fp, fm, "url"); ok {
			checkURL(p, jsonbody.Join(fp, "url"), f.URL)
		}
	case "file_upload":
		jsonbody.Unknown(p, fp, fm, "id")
		if f.ID, ok = jsonbody.RequiredStr(p, fp, fm, "id"); ok {
			checkID(p, jsonbody.Join(fp, "id"), f.ID)
		}
	case "file":
		// The original service's clients send an upload back with oss_name (its ID, which the
		// service resolves) and the read-only size and content_type; url is then not needed.
		jsonbody.Unknown(p, fp, fm, "url", "expiry_time", "oss_name", "size", "content_type")
		f.ID, _ = nullableStr(p, fp, fm, "oss_name")
		if f.ID != "" && fm["url"] == nil {
			ok = true
		} else if f.URL, ok = jsonbody.RequiredStr(p, fp, fm, "url"); ok {
			checkURL(p, jsonbody.Join(fp, "url"), f.URL)
		}
		f.ExpiryTime, _ = nullableStr(p, fp, fm, "expiry_time")
	}
	if !ok {
		return nil
	}
	return f
}

func decodeIcon(p *quire.Problems, path string, v any) *Icon {
	if v == nil {
		return nil
	}
	m, ok := jsonbody.Object(p, path, v)
	if !ok {
		return nil
	}
	typ, ok := jsonbody.Str(p, path, m, "type")
	if _, present := m["type"]; present && !ok {
		return nil
	}
	if !ok {
		if typ = inferKind(m, append([]string{"emoji"}, fileKinds...)); typ == "" {
			p.Add(jsonbody.Join(path, "type"), quire.ReasonRequired, "An icon needs a type.")
			return nil
		}
	}
	if typ == "emoji" {
		jsonbody.Unknown(p, path, m, "type", "emoji")
		e, ok := jsonbody.RequiredStr(p, path, m, "emoji")
		if !ok {
			return nil
		}
		if !validEmoji(e) {
			p.Add(jsonbody.Join(path, "emoji"), quire.ReasonInvalidValue, "Not an emoji.")
		}
		return &Icon{Emoji: e}
	}
	jsonbody.Unknown(p, path, m, append([]string{"type"}, fileKinds...)...)
	if f := decodeFile(p, path, m, typ); f != nil {
		return &Icon{File: f}
	}
	return nil
}
