package blocks

import (
	"strconv"
	"unicode/utf8"
)

// The canonical JSON is written by hand: the key order is fixed (so equal content has equal
// bytes, which keeps ETags and idempotency hashes stable) and it costs no reflection.

// MarshalContent returns the canonical JSON of b's type object (children aside): the API's
// read shape, which is also the stored form.
func MarshalContent(b *Block) []byte {
	return AppendContent(make([]byte, 0, 256), b)
}

// AppendBlock appends `{"object":"block","type":T,T:{…}}`: the part of a block object this
// package owns (the service adds id, parent, times, has_children and in_trash).
func AppendBlock(dst []byte, b *Block) []byte {
	dst = append(dst, `{"object":"block","type":`...)
	dst = AppendString(dst, b.Type)
	dst = append(dst, ',')
	dst = AppendString(dst, b.Type)
	dst = append(dst, ':')
	dst = AppendContent(dst, b)
	return append(dst, '}')
}

// AppendContent appends the canonical JSON of b's type object.
func AppendContent(dst []byte, b *Block) []byte {
	info := types[b.Type]
	c := &b.Content
	w := objWriter{dst: append(dst, '{')}
	if info.richText {
		w.key("rich_text")
		w.dst = AppendRichText(w.dst, c.RichText)
	}
	if info.caption {
		w.key("caption")
		w.dst = AppendRichText(w.dst, c.Caption)
	}
	if info.media {
		f := c.File
		if f == nil {
			f = &FileSource{Type: "external"}
		}
		w.key("type")
		w.dst = AppendString(w.dst, f.Type)
		w.key(f.Type)
		w.dst = appendFileBody(w.dst, f)
	}
	switch b.Type {
	case "heading_1", "heading_2", "heading_3":
		w.boolean("is_toggleable", c.IsToggleable)
	case "to_do":
		w.boolean("checked", c.Checked)
	case "callout":
		w.key("icon")
		w.dst = appendIcon(w.dst, c.Icon)
	case "code":
		lang := c.Language
		if lang == "" {
			lang = "plain text"
		}
		w.str("language", lang)
	case "equation":
		w.str("expression", c.Expression)
	case "file":
		w.str("name", c.Name)
	case "bookmark", "embed":
		w.str("url", c.URL)
	case "table":
		w.key("table_width")
		w.dst = strconv.AppendInt(w.dst, int64(c.TableWidth), 10)
		w.boolean("has_column_header", c.HasColumnHeader)
		w.boolean("has_row_header", c.HasRowHeader)
	case "table_row":
		w.key("cells")
		w.dst = append(w.dst, '[')
		for i, cell := range c.Cells {
			if i > 0 {
				w.dst = append(w.dst, ',')
			}
			w.dst = AppendRichText(w.dst, cell)
		}
		w.dst = append(w.dst, ']')
	case "link_to_page":
		if c.DatabaseID != "" {
			w.str("type", "database_id")
			w.str("database_id", c.DatabaseID)
		} else {
			w.str("type", "page_id")
			w.str("page_id", c.PageID)
		}
	case "child_page", "child_database":
		w.str("title", c.Title)
	}
	if info.color {
		w.str("text_color", orDefault(c.TextColor))
		w.str("background_color", orDefault(c.BackgroundColor))
	}
	// Only when set, as the original service answers, so content written before these existed
	// keeps its bytes (and its ETag).
	if info.textAlign && c.TextAlign != "" {
		w.str("text_align", c.TextAlign)
	}
	if info.captionAlign && c.CaptionAlign != "" {
		w.str("caption_align", c.CaptionAlign)
	}
	return append(w.dst, '}')
}

type objWriter struct {
	dst  []byte
	more bool
}

func (w *objWriter) key(k string) {
	if w.more {
		w.dst = append(w.dst, ',')
	}
	w.more = true
	w.dst = AppendString(w.dst, k)
	w.dst = append(w.dst, ':')
}

func (w *objWriter) str(k, v string) {
	w.key(k)
	w.dst = AppendString(w.dst, v)
}

func (w *objWriter) nullable(k, v string) {
	w.key(k)
	if v == "" {
		w.dst = append(w.dst, "null"...)
	} else {
		w.dst = AppendString(w.dst, v)
	}
}

func (w *objWriter) boolean(k string, v bool) {
	w.key(k)
	w.dst = strconv.AppendBool(w.dst, v)
}

func appendIcon(dst []byte, ic *Icon) []byte {
	switch {
	case ic == nil:
		return append(dst, "null"...)
	case ic.File != nil:
		return appendFile(dst, ic.File)
	}
	dst = append(dst, `{"type":"emoji","emoji":`...)
	dst = AppendString(dst, ic.Emoji)
	return append(dst, '}')
}

// appendFile appends {"type":T,T:{…}}.
func appendFile(dst []byte, f *FileSource) []byte {
	dst = append(dst, `{"type":`...)
	dst = AppendString(dst, f.Type)
	dst = append(dst, ',')
	dst = AppendString(dst, f.Type)
	dst = append(dst, ':')
	dst = appendFileBody(dst, f)
	return append(dst, '}')
}

func appendFileBody(dst []byte, f *FileSource) []byte {
	w := objWriter{dst: append(dst, '{')}
	switch f.Type {
	case "file_upload":
		w.str("id", f.ID)
	case "file":
		if f.ID != "" {
			w.str("oss_name", f.ID)
		}
		if f.URL != "" || f.ID == "" {
			w.str("url", f.URL)
		}
		w.nullable("expiry_time", f.ExpiryTime)
	default:
		w.str("url", f.URL)
	}
	return append(w.dst, '}')
}

// AppendRichText appends the read shape of rt: every annotation present, plain_text and href.
func AppendRichText(dst []byte, rt RichText) []byte {
	dst = append(dst, '[')
	for i := range rt {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendItem(dst, &rt[i])
	}
	return append(dst, ']')
}

// AppendItem appends the read shape of one rich-text item.
func AppendItem(dst []byte, it *Item) []byte {
	w := objWriter{dst: append(dst, '{')}
	w.str("type", it.Type)
	switch it.Type {
	case "text":
		t := it.Text
		if t == nil {
			t = &Text{}
		}
		w.key("text")
		w.dst = append(w.dst, `{"content":`...)
		w.dst = AppendString(w.dst, t.Content)
		w.dst = append(w.dst, `,"link":`...)
		if t.Link == nil {
			w.dst = append(w.dst, "null"...)
		} else {
			w.dst = append(w.dst, `{"url":`...)
			w.dst = AppendString(w.dst, t.Link.URL)
			w.dst = append(w.dst, '}')
		}
		w.dst = append(w.dst, '}')
	case "equation":
		expr := ""
		if it.Equation != nil {
			expr = it.Equation.Expression
		}
		w.key("equation")
		w.dst = append(w.dst, `{"expression":`...)
		w.dst = AppendString(w.dst, expr)
		w.dst = append(w.dst, '}')
	case "mention":
		w.key("mention")
		w.dst = appendMention(w.dst, it.Mention)
	}
	a := &it.Annotations
	w.key("annotations")
	w.dst = append(w.dst, `{"bold":`...)
	w.dst = strconv.AppendBool(w.dst, a.Bold)
	w.dst = append(w.dst, `,"italic":`...)
	w.dst = strconv.AppendBool(w.dst, a.Italic)
	w.dst = append(w.dst, `,"strikethrough":`...)
	w.dst = strconv.AppendBool(w.dst, a.Strikethrough)
	w.dst = append(w.dst, `,"underline":`...)
	w.dst = strconv.AppendBool(w.dst, a.Underline)
	w.dst = append(w.dst, `,"code":`...)
	w.dst = strconv.AppendBool(w.dst, a.Code)
	w.dst = append(w.dst, `,"text_color":`...)
	w.dst = AppendString(w.dst, orDefault(a.TextColor))
	w.dst = append(w.dst, `,"background_color":`...)
	w.dst = AppendString(w.dst, orDefault(a.BackgroundColor))
	w.dst = append(w.dst, '}')
	w.str("plain_text", it.PlainText)
	w.nullable("href", it.Href)
	return append(w.dst, '}')
}

func appendMention(dst []byte, m *Mention) []byte {
	if m == nil {
		m = &Mention{}
	}
	w := objWriter{dst: append(dst, '{')}
	w.str("type", m.Type)
	w.key(m.Type)
	switch m.Type {
	case "date":
		d := m.Date
		if d == nil {
			d = &Date{}
		}
		dw := objWriter{dst: append(w.dst, '{')}
		dw.str("start", d.Start)
		dw.nullable("end", d.End)
		dw.nullable("time_zone", d.TimeZone)
		w.dst = append(dw.dst, '}')
	case "user":
		w.dst = append(w.dst, `{"object":"user","id":`...)
		w.dst = AppendString(w.dst, m.ID)
		w.dst = append(w.dst, '}')
	default:
		w.dst = append(w.dst, `{"id":`...)
		w.dst = AppendString(w.dst, m.ID)
		w.dst = append(w.dst, '}')
	}
	return append(w.dst, '}')
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as encoding/json does except that <, >
// and & stay literal (the output is never embedded in HTML). Invalid UTF-8 becomes U+FFFD.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s, false) }

// AppendStringAsJSON appends s exactly as encoding/json's Marshal does: also <, > and & as
// \u003c …, and \b and \f by name. Stored values written by hand keep the bytes Marshal wrote.
func AppendStringAsJSON(dst []byte, s string) []byte { return appendString(dst, s, true) }

func appendString(dst []byte, s string, asMarshal bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!asMarshal || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case asMarshal && c == '\b':
				dst = append(dst, '\\', 'b')
			case asMarshal && c == '\f':
				dst = append(dst, '\\', 'f')
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
