package blocks

import (
	"encoding/json"
	"fmt"

	"github.com/quire-dev/quire/internal/jsonread"
)

// Reading back canonical JSON trusts it (it was validated when written), so it goes through
// plain struct decoding: several times faster than the request decoder, which matters when a
// page's whole tree is exported as Markdown.

// UnmarshalContent reads the canonical JSON of a type object written by AppendContent.
func UnmarshalContent(typ string, raw []byte) (*Block, error) {
	if !Known(typ) {
		return nil, fmt.Errorf("blocks: unknown stored block type %q", typ)
	}
	var w wireContent
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("blocks: stored %s content: %w", typ, err)
	}
	b := &Block{Type: typ}
	c := &b.Content
	c.RichText = w.RichText.rich()
	c.Caption = w.Caption.rich()
	c.TextColor, c.BackgroundColor = w.TextColor, w.BackgroundColor
	c.TextAlign, c.CaptionAlign = w.TextAlign, w.CaptionAlign
	c.IsToggleable, c.Checked = w.IsToggleable, w.Checked
	c.Language, c.Expression, c.Name, c.URL, c.Title = w.Language, w.Expression, w.Name, w.URL, w.Title
	c.TableWidth, c.HasColumnHeader, c.HasRowHeader = w.TableWidth, w.HasColumnHeader, w.HasRowHeader
	c.PageID, c.DatabaseID = w.PageID, w.DatabaseID
	if w.Icon != nil {
		if w.Icon.Type == "emoji" {
			c.Icon = &Icon{Emoji: w.Icon.Emoji}
		} else {
			c.Icon = &Icon{File: w.Icon.file()}
		}
	}
	if types[typ].media {
		c.File = w.wireFile.file()
	}
	if w.Cells != nil {
		c.Cells = make([]RichText, len(w.Cells))
		for i, cell := range w.Cells {
			c.Cells[i] = cell.rich()
			if c.Cells[i] == nil {
				c.Cells[i] = RichText{}
			}
		}
	}
	return b, nil
}

// UnmarshalRichText reads a rich-text array written by AppendRichText.
func UnmarshalRichText(raw []byte) (RichText, error) {
	r := jsonread.New(raw)
	if rt := ReadRichText(&r); r.End() {
		return rt, nil
	}
	return unmarshalRichTextJSON(raw)
}

// unmarshalRichTextJSON is UnmarshalRichText through encoding/json: the reference for the
// shapes ReadRichText leaves to it.
// A list holding a string is a short form (AppendShortRichText).
func unmarshalRichTextJSON(raw []byte) (RichText, error) {
	var w wireRich
	if err := json.Unmarshal(raw, &w); err != nil {
		if rt, err2 := unmarshalShortJSON(raw); err2 == nil {
			return rt, nil
		}
		return nil, fmt.Errorf("blocks: stored rich text: %w", err)
	}
	return w.rich(), nil
}

type wireFile struct {
	Type     string `json:"type"`
	External *struct {
		URL string `json:"url"`
	} `json:"external"`
	FileUpload *struct {
		ID string `json:"id"`
	} `json:"file_upload"`
	File *struct {
		URL        string `json:"url"`
		ExpiryTime string `json:"expiry_time"`
	} `json:"file"`
}

func (w *wireFile) file() *FileSource {
	f := &FileSource{Type: w.Type}
	switch {
	case w.Type == "external" && w.External != nil:
		f.URL = w.External.URL
	case w.Type == "file_upload" && w.FileUpload != nil:
		f.ID = w.FileUpload.ID
	case w.Type == "file" && w.File != nil:
		f.URL, f.ExpiryTime = w.File.URL, w.File.ExpiryTime
	default:
		return nil
	}
	return f
}

type wireIcon struct {
	wireFile
	Emoji string `json:"emoji"`
}

type wireContent struct {
	wireFile
	RichText        wireRich   `json:"rich_text"`
	Caption         wireRich   `json:"caption"`
	TextColor       string     `json:"text_color"`
	BackgroundColor string     `json:"background_color"`
	TextAlign       string     `json:"text_align"`
	CaptionAlign    string     `json:"caption_align"`
	IsToggleable    bool       `json:"is_toggleable"`
	Checked         bool       `json:"checked"`
	Icon            *wireIcon  `json:"icon"`
	Language        string     `json:"language"`
	Expression      string     `json:"expression"`
	Name            string     `json:"name"`
	URL             string     `json:"url"`
	TableWidth      int        `json:"table_width"`
	HasColumnHeader bool       `json:"has_column_header"`
	HasRowHeader    bool       `json:"has_row_header"`
	Cells           []wireRich `json:"cells"`
	PageID          string     `json:"page_id"`
	DatabaseID      string     `json:"database_id"`
	Title           string     `json:"title"`
}

type wireID struct {
	ID string `json:"id"`
}

type wireItem struct {
	Type string `json:"type"`
	Text *struct {
		Content string `json:"content"`
		Link    *struct {
			URL string `json:"url"`
		} `json:"link"`
	} `json:"text"`
	Mention *struct {
		Type     string  `json:"type"`
		User     *wireID `json:"user"`
		Page     *wireID `json:"page"`
		Database *wireID `json:"database"`
		Date     *struct {
			Start    string `json:"start"`
			End      string `json:"end"`
			TimeZone string `json:"time_zone"`
		} `json:"date"`
	} `json:"mention"`
	Equation *struct {
		Expression string `json:"expression"`
	} `json:"equation"`
	Annotations struct {
		Bold            bool   `json:"bold"`
		Italic          bool   `json:"italic"`
		Strikethrough   bool   `json:"strikethrough"`
		Underline       bool   `json:"underline"`
		Code            bool   `json:"code"`
		TextColor       string `json:"text_color"`
		BackgroundColor string `json:"background_color"`
	} `json:"annotations"`
	PlainText string `json:"plain_text"`
	Href      string `json:"href"`
}

type wireRich []wireItem

func (w wireRich) rich() RichText {
	if w == nil {
		return nil
	}
	rt := make(RichText, len(w))
	for i := range w {
		wi := &w[i]
		it := &rt[i]
		it.Type, it.PlainText, it.Href = wi.Type, wi.PlainText, wi.Href
		it.Annotations = Annotations(wi.Annotations)
		switch {
		case wi.Text != nil:
			it.Text = &Text{Content: wi.Text.Content}
			if wi.Text.Link != nil {
				it.Text.Link = &Link{URL: wi.Text.Link.URL}
			}
		case wi.Equation != nil:
			it.Equation = &Equation{Expression: wi.Equation.Expression}
		case wi.Mention != nil:
			m := &Mention{Type: wi.Mention.Type}
			for _, id := range []*wireID{wi.Mention.User, wi.Mention.Page, wi.Mention.Database} {
				if id != nil {
					m.ID = id.ID
				}
			}
			if d := wi.Mention.Date; d != nil {
				m.Date = &Date{Start: d.Start, End: d.End, TimeZone: d.TimeZone}
			}
			it.Mention = m
		}
	}
	return rt
}

// The short form of a rich text: each plain item (IsPlain) is its content alone, a JSON
// string; any other item is its read shape. Records store their titles and rich texts so
// (issue 15: a plain item written out in full is 180 bytes of defaults around its text, and a
// record's row is most of what writing it costs). UnmarshalRichText reads both forms.

// IsPlain reports whether it reads back the same from its content alone: a text item without
// annotations or link whose plain_text is its content.
func (it *Item) IsPlain() bool {
	a := &it.Annotations
	return it.Type == "text" && it.Text != nil && it.Text.Link == nil && it.PlainText == it.Text.Content && it.Href == "" &&
		!a.Bold && !a.Italic && !a.Strikethrough && !a.Underline && !a.Code && orDefault(a.TextColor) == "default" &&
		orDefault(a.BackgroundColor) == "default"
}

// PlainItem is the item a string of the short form reads as: what the read shape of a plain
// item reads as (its colours "default", as AppendItem writes them).
func PlainItem(content string) Item {
	return Item{Type: "text", Text: &Text{Content: content}, Annotations: Annotations{TextColor: "default", BackgroundColor: "default"},
		PlainText: content}
}

// AppendShortRichText appends rt's short form.
func AppendShortRichText(dst []byte, rt RichText) []byte {
	dst = append(dst, '[')
	for i := range rt {
		if i > 0 {
			dst = append(dst, ',')
		}
		if rt[i].IsPlain() {
			dst = AppendString(dst, rt[i].Text.Content)
		} else {
			dst = AppendItem(dst, &rt[i])
		}
	}
	return append(dst, ']')
}

// unmarshalShortJSON reads a short form through encoding/json (a long one reads the same).
func unmarshalShortJSON(raw []byte) (RichText, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("blocks: stored rich text: %w", err)
	}
	if items == nil {
		return nil, nil
	}
	rt := make(RichText, 0, len(items))
	for _, raw := range items {
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("blocks: stored rich text: %w", err)
			}
			rt = append(rt, PlainItem(s))
			continue
		}
		var w wireItem
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("blocks: stored rich text: %w", err)
		}
		rt = append(rt, wireRich{w}.rich()...)
	}
	return rt, nil
}

// LongRichText returns stored rich text raw in full (AppendRichText): raw itself unless it is
// a short form holding a plain item, so that a rich text stored in full keeps its bytes.
func LongRichText(raw []byte) ([]byte, error) {
	rt, err := UnmarshalRichText(raw)
	if err != nil {
		return nil, err
	}
	if string(AppendShortRichText(nil, rt)) != string(raw) {
		return raw, nil
	}
	return AppendRichText(nil, rt), nil
}
