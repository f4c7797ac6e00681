// Package blocks is the block content model: rich text, the block tree, the decoders that
// validate a write request, the canonical JSON that is stored and served, and the merge of a
// PATCH /v2/blocks/:id body. It does no I/O.
//
// A block's content is one Content value whatever its type; the type's table entry (see
// Types) says which fields belong to it. The canonical JSON written by AppendContent is the
// API's read shape of the type object (`{"rich_text":[…],"text_color":"default",…}`), so a
// store can keep it in one column and splice it into responses without decoding it.
package blocks

import "strings"

// Block is one block with its content and, while a request or a Markdown import is being
// handled, its nested children. Stored blocks are rows; Children is then empty.
type Block struct {
	Type     string
	Content  Content
	Children []*Block
	// ChildrenBeside says the request wrote Children beside type rather than inside the type
	// object, so that later errors name the place they were sent (ChildrenPath).
	ChildrenBeside bool
}

// ChildrenPath is the path of b's children array as the request wrote it, given the path of
// b's type object ("children[2].toggle"): "children[2].toggle.children", or
// "children[2].children" when they stood beside type.
func (b *Block) ChildrenPath(typePath string) string {
	if b.ChildrenBeside {
		return strings.TrimSuffix(typePath, "."+b.Type) + ".children"
	}
	return typePath + ".children"
}

// Content holds the type object of every block type; only the fields that belong to Type
// are meaningful and encoded. Colours are "" or "default" for none.
type Content struct {
	RichText        RichText // paragraph, headings, list items, to_do, toggle, quote, callout, code
	TextColor       string   // block-level colour channels (see HasColor)
	BackgroundColor string
	IsToggleable    bool        // heading_1, heading_2, heading_3
	Checked         bool        // to_do
	Icon            *Icon       // callout; nil when none
	Language        string      // code; "" reads as "plain text"
	Caption         RichText    // code, image, file, pdf, video, audio, bookmark, embed
	TextAlign       string      // "" (not set), left, center or right: text blocks and media (see typeInfo.textAlign)
	CaptionAlign    string      // as TextAlign, for the caption of media blocks (typeInfo.captionAlign)
	Expression      string      // equation
	File            *FileSource // image, file, pdf, video, audio
	Name            string      // file: the file's display name
	URL             string      // bookmark, embed; for child_page, child_database and link_to_page the address a renderer links to, filled in by the caller and never stored
	TableWidth      int         // table
	HasColumnHeader bool        // table
	HasRowHeader    bool        // table
	Cells           []RichText  // table_row
	PageID          string      // link_to_page (type page_id)
	DatabaseID      string      // link_to_page (type database_id)
	Title           string      // child_page, child_database; for link_to_page a title the caller fills in for renderers, never stored
}

// Icon is a callout icon: {"type":"emoji","emoji":…} or a file source
// ({"type":"external",…}, {"type":"file_upload",…}, {"type":"file",…}).
type Icon struct {
	Emoji string      // set when the icon is an emoji
	File  *FileSource // set otherwise
}

// FileSource is where a media block's or an icon's file lives. Type is "external" (URL),
// "file_upload" (ID of an upload, the stored form), or "file" (URL and ExpiryTime: the read
// form of an upload, produced by the service; a write that sends it back, naming the upload
// by URL or by ID from its oss_name, must be resolved to an upload by the service, see Walk).
type FileSource struct {
	Type       string
	URL        string
	ID         string
	ExpiryTime string
}

// typeInfo describes what a block type's object holds.
type typeInfo struct {
	richText  bool // rich_text
	color     bool // text_color, background_color, legacy color
	children  bool // may hold children
	caption   bool
	media     bool // external | file_upload | file
	readOnly  bool // made by creating a page or database, never written as a block
	container bool // children are required and of one type (table, column_list, column)
	// textAlign and captionAlign: the original service's text_align (the block's text, or a
	// media block's alignment) and caption_align, stored only when set.
	textAlign    bool
	captionAlign bool
}

// Alignments are the values of text_align and caption_align.
var Alignments = []string{"left", "center", "right"}

// Types lists every block type the API knows, readable and (unless read-only) writable.
var Types = []string{
	"paragraph", "heading_1", "heading_2", "heading_3", "bulleted_list_item", "numbered_list_item",
	"to_do", "toggle", "quote", "callout", "code", "divider", "equation", "image", "file", "pdf",
	"video", "audio", "bookmark", "embed", "table", "table_row", "column_list", "column", "link_to_page",
	"table_of_contents", "breadcrumb", "child_page", "child_database",
}

var types = map[string]typeInfo{
	"paragraph":          textType,
	"heading_1":          textType,
	"heading_2":          textType,
	"heading_3":          textType,
	"bulleted_list_item": textType,
	"numbered_list_item": textType,
	"to_do":              textType,
	"toggle":             textType,
	"quote":              textType,
	"callout":            textType,
	"code":               {richText: true, caption: true},
	"divider":            {},
	"equation":           {},
	"image":              mediaType,
	"file":               mediaType,
	"pdf":                mediaType,
	"video":              mediaType,
	"audio":              mediaType,
	"bookmark":           linkType,
	"embed":              linkType,
	"table":              {children: true, container: true},
	"table_row":          {},
	"column_list":        {children: true, container: true},
	"column":             {children: true, container: true},
	"link_to_page":       {},
	"table_of_contents":  {},
	"breadcrumb":         {},
	"child_page":         {readOnly: true},
	"child_database":     {readOnly: true},
}

var (
	textType  = typeInfo{richText: true, color: true, children: true, textAlign: true}
	mediaType = typeInfo{media: true, caption: true, textAlign: true, captionAlign: true}
	linkType  = typeInfo{caption: true, textAlign: true, captionAlign: true} // a url of its own
)

// Known reports whether t is a block type.
func Known(t string) bool { _, ok := types[t]; return ok }

// Writable reports whether blocks of type t may be created or updated through the blocks API.
func Writable(t string) bool { info, ok := types[t]; return ok && !info.readOnly }

// HasColor reports whether type t carries the block-level colour channels.
func HasColor(t string) bool { return types[t].color }

// HasRichText reports whether type t holds rich_text.
func HasRichText(t string) bool { return types[t].richText }

// CanHaveChildren reports whether b may hold children: headings only when toggleable.
func CanHaveChildren(b *Block) bool {
	if !types[b.Type].children {
		return false
	}
	switch b.Type {
	case "heading_1", "heading_2", "heading_3":
		return b.Content.IsToggleable
	}
	return true
}

// childType is the only type allowed below a container, "" when any non-container type is.
func childType(parent string) string {
	switch parent {
	case "table":
		return "table_row"
	case "column_list":
		return "column"
	}
	return ""
}

// Walk calls fn for every block of the forest in document order (parent before children)
// with its depth (0 for the top level); it stops at the first error and returns it.
func Walk(bs []*Block, fn func(depth int, b *Block) error) error {
	return walk(bs, 0, fn)
}

func walk(bs []*Block, depth int, fn func(int, *Block) error) error {
	for _, b := range bs {
		if err := fn(depth, b); err != nil {
			return err
		}
		if err := walk(b.Children, depth+1, fn); err != nil {
			return err
		}
	}
	return nil
}

// Count returns how many blocks the forest holds, nested ones included.
func Count(bs []*Block) int {
	n := 0
	_ = Walk(bs, func(int, *Block) error { n++; return nil })
	return n
}
