package httpapi

import (
	"encoding/json"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
)

// The stored canonical JSON (rich text, icons, block content) is spliced into answers as it
// is; these raw types carry it and describe it in the document.

// richTextJSON is an array of rich-text items.
type richTextJSON json.RawMessage

func (r richTextJSON) MarshalJSON() ([]byte, error) { return rawOr(r, "[]"), nil }

// Schema describes rich text in the document.
func (richTextJSON) Schema(reg huma.Registry) *huma.Schema {
	return &huma.Schema{Type: "array", Items: reg.Schema(reflect.TypeFor[richTextItem](), true, "")}
}

// fileObjectJSON is null or an icon or cover object.
type fileObjectJSON json.RawMessage

func (r fileObjectJSON) MarshalJSON() ([]byte, error) { return rawOr(r, "null"), nil }

// Schema describes an icon or cover in the document.
func (fileObjectJSON) Schema(reg huma.Registry) *huma.Schema {
	s := reg.Schema(reflect.TypeFor[fileObject](), true, "")
	return &huma.Schema{OneOf: []*huma.Schema{{Type: "null"}, s}}
}

func rawOr(r []byte, empty string) []byte {
	if len(r) == 0 {
		return []byte(empty)
	}
	return r
}

// richTextItem documents one rich-text item as it is read back.
type richTextItem struct {
	Type        string           `json:"type" enum:"text,mention,equation"`
	Text        *textContent     `json:"text,omitempty"`
	Mention     *mentionRead     `json:"mention,omitempty"`
	Equation    *equationContent `json:"equation,omitempty"`
	Annotations annotations      `json:"annotations"`
	PlainText   string           `json:"plain_text"`
	Href        *string          `json:"href"`
}

type textContent struct {
	Content string      `json:"content" maxLength:"2000"`
	Link    *linkOrNull `json:"link"`
}

// textInput is the text of a rich-text item as written.
type textInput struct {
	Content string      `json:"content" maxLength:"2000"`
	Link    *linkOrNull `json:"link,omitempty"`
}

// linkOrNull documents a link that may be null (huma has no nullable struct references).
type linkOrNull struct {
	URL string `json:"url"`
}

// Schema describes {"url":…} or null.
func (linkOrNull) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{{Type: "null"}, {Type: "object", AdditionalProperties: false,
		Properties: map[string]*huma.Schema{"url": {Type: "string"}}, Required: []string{"url"}}}}
}

type linkObject struct {
	URL string `json:"url"`
}

type equationContent struct {
	Expression string `json:"expression"`
}

type annotations struct {
	Bold            bool   `json:"bold"`
	Italic          bool   `json:"italic"`
	Strikethrough   bool   `json:"strikethrough"`
	Underline       bool   `json:"underline"`
	Code            bool   `json:"code"`
	TextColor       string `json:"text_color" enum:"default,black,gray,brown,orange,pink,yellow,green,blue,purple,red"`
	BackgroundColor string `json:"background_color" enum:"default,gray,brown,orange,pink,yellow,green,blue,purple,red,light_yellow,light_green,light_blue,light_purple,light_red,yellow_green,green_blue,blue_purple,purple_red,red_orange"`
}

// fileObject documents an icon or cover: an emoji (icons only), an external URL, an upload
// (on write) or a served file (on read).
type fileObject struct {
	Type       string         `json:"type" enum:"emoji,external,file_upload,file"`
	Emoji      string         `json:"emoji,omitempty"`
	External   *linkObject    `json:"external,omitempty"`
	FileUpload *fileUploadRef `json:"file_upload,omitempty"`
	File       *servedFile    `json:"file,omitempty"`
}

type fileUploadRef struct {
	ID string `json:"id" format:"uuid"`
}

type servedFile struct {
	URL        string `json:"url" required:"false" doc:"Always in an answer; a write may leave it out when it names the upload by oss_name."`
	ExpiryTime string `json:"expiry_time" format:"date-time" nullable:"true" required:"false" doc:"When url stops working; null for a stored file written back without one."`
	// An upload read back names itself by oss_name, and a write may name it by oss_name alone
	// (the original service's shape, which also sends size and content_type back; both ignored).
	OssName     string `json:"oss_name,omitempty" doc:"The upload's id; on a write it names the upload (url may then be left out)."`
	Size        *int64 `json:"size,omitempty" doc:"Accepted on a write and ignored."`
	ContentType string `json:"content_type,omitempty" doc:"Accepted on a write and ignored."`
}

// parentObject is where an object lives.
type parentObject struct {
	Type       string `json:"type" enum:"workspace,page_id,database_id,block_id"`
	Workspace  bool   `json:"workspace,omitempty"`
	PageID     string `json:"page_id,omitempty" format:"uuid"`
	DatabaseID string `json:"database_id,omitempty" format:"uuid"`
	BlockID    string `json:"block_id,omitempty" format:"uuid"`
}

func newParent(typ, id string) parentObject {
	p := parentObject{Type: typ}
	switch typ {
	case quire.ParentWorkspace:
		p.Workspace = true
	case quire.ParentPage:
		p.PageID = id
	case quire.ParentDatabase:
		p.DatabaseID = id
	case quire.ParentBlock:
		p.BlockID = id
	}
	return p
}

func ref(id string) userRef { return userRef{Object: "user", ID: id} }
