package client

// RichText is one item of rich text. Reads fill every field; for writes Text (or Text
// with a link) is enough: Text("…") builds one.
type RichText struct {
	Type        string          `json:"type,omitempty"` // text, mention or equation
	Text        *TextContent    `json:"text,omitempty"`
	Mention     map[string]any  `json:"mention,omitempty"`
	Equation    *EquationObject `json:"equation,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	PlainText   string          `json:"plain_text,omitempty"`
	Href        *string         `json:"href,omitempty"`
}

// TextContent is the text of a rich-text item; Link is nil or {URL}.
type TextContent struct {
	Content string `json:"content"`
	Link    *Link  `json:"link,omitempty"`
}

// Link is a hyperlink.
type Link struct {
	URL string `json:"url"`
}

// EquationObject is a KaTeX expression.
type EquationObject struct {
	Expression string `json:"expression"`
}

// Annotations style a rich-text item.
type Annotations struct {
	Bold            bool   `json:"bold,omitempty"`
	Italic          bool   `json:"italic,omitempty"`
	Strikethrough   bool   `json:"strikethrough,omitempty"`
	Underline       bool   `json:"underline,omitempty"`
	Code            bool   `json:"code,omitempty"`
	TextColor       string `json:"text_color,omitempty"`
	BackgroundColor string `json:"background_color,omitempty"`
}

// Text returns one plain rich-text item holding content.
func Text(content string) []RichText { return []RichText{Plain(content)} }

// Plain returns one plain rich-text item, to mix with others (Paragraph(Plain("a "), Bold("b"))).
func Plain(content string) RichText {
	return RichText{Type: "text", Text: &TextContent{Content: content}}
}

// Bold returns one bold rich-text item.
func Bold(content string) RichText {
	return RichText{Type: "text", Text: &TextContent{Content: content}, Annotations: &Annotations{Bold: true}}
}

// PlainText joins the plain text of items (for reads, where the server fills plain_text).
func PlainText(items []RichText) string {
	s := ""
	for _, it := range items {
		switch {
		case it.PlainText != "":
			s += it.PlainText
		case it.Text != nil:
			s += it.Text.Content
		}
	}
	return s
}

// Parent is where a page, database, block or mind map lives.
type Parent struct {
	Type       string `json:"type,omitempty"` // workspace, page_id, database_id or block_id
	Workspace  bool   `json:"workspace,omitempty"`
	PageID     string `json:"page_id,omitempty"`
	DatabaseID string `json:"database_id,omitempty"`
	BlockID    string `json:"block_id,omitempty"`
}

// WorkspaceParent is the workspace's top level (workspace-scoped tokens only).
func WorkspaceParent() *Parent { return &Parent{Type: "workspace", Workspace: true} }

// PageParent is the page (or folder) id.
func PageParent(id string) *Parent { return &Parent{Type: "page_id", PageID: id} }

// DatabaseParent is the database id: a page under it is one of its records.
func DatabaseParent(id string) *Parent { return &Parent{Type: "database_id", DatabaseID: id} }

// Icon is a page's or database's icon or cover: an emoji, an external URL, an upload
// (written as FileUpload, read back as File).
type Icon struct {
	Type       string         `json:"type"` // emoji, external, file_upload or file
	Emoji      string         `json:"emoji,omitempty"`
	External   *Link          `json:"external,omitempty"`
	FileUpload *FileUploadRef `json:"file_upload,omitempty"`
	File       *FileURL       `json:"file,omitempty"`
}

// Emoji is an emoji icon.
func Emoji(e string) *Icon { return &Icon{Type: "emoji", Emoji: e} }

// ExternalIcon is an icon or cover at url.
func ExternalIcon(url string) *Icon { return &Icon{Type: "external", External: &Link{URL: url}} }

// UploadedIcon is an icon or cover from an upload made with Files.UploadURL.
func UploadedIcon(uploadID string) *Icon {
	return &Icon{Type: "file_upload", FileUpload: &FileUploadRef{ID: uploadID}}
}

// FileUploadRef names an upload.
type FileUploadRef struct {
	ID string `json:"id"`
}

// FileURL is a served file: a signed URL valid until ExpiryTime.
type FileURL struct {
	URL        string `json:"url"`
	ExpiryTime string `json:"expiry_time,omitempty"`
}

// UserRef points at a user.
type UserRef struct {
	Object string `json:"object"`
	ID     string `json:"id"`
}
