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
	w := ObjWriter{Dst: append(dst, '{')}
	if info.richText {
		w.Key("rich_text")
		w.Dst = AppendRichText(w.Dst, c.RichText)
	}
	if info.caption {
		w.Key("caption")
		w.Dst = AppendRichText(w.Dst, c.Caption)
	}
	if info.media {
		f := c.File
		if f == nil {
			f = &FileSource{Type: "external"}
		}
		w.Key("type")
		w.Dst = AppendString(w.Dst, f.Type)
		w.Key(f.Type)
		w.Dst = appendFileBody(w.Dst, f)
	}
	switch b.Type {
	case "heading_1", "heading_2", "heading_3":
		w.Bool("is_toggleable", c.IsToggleable)
	case "to_do":
		w.Bool("checked", c.Checked)
	case "callout":
		w.Key("icon")
		w.Dst = appendIcon(w.Dst, c.Icon)
	case "code":
		lang := c.Language
		if lang == "" {
			lang = "plain text"
		}
		w.Str("language", lang)
	case "equation":
		w.Str("expression", c.Expression)
	case "file":
		w.Str("name", c.Name)
	case "bookmark", "embed":
		w.Str("url", c.URL)
	case "table":
		w.Key("table_width")
		w.Dst = strconv.AppendInt(w.Dst, int64(c.TableWidth), 10)
		w.Bool("has_column_header", c.HasColumnHeader)
		w.Bool("has_row_header", c.HasRowHeader)
	case "table_row":
		w.Key("cells")
		w.Dst = append(w.Dst, '[')
		for i, cell := range c.Cells {
			if i > 0 {
				w.Dst = append(w.Dst, ',')
			}
			w.Dst = AppendRichText(w.Dst, cell)
		}
		w.Dst = append(w.Dst, ']')
	case "link_to_page":
		if c.DatabaseID != "" {
			w.Str("type", "database_id")
			w.Str("database_id", c.DatabaseID)
		} else {
			w.Str("type", "page_id")
			w.Str("page_id", c.PageID)
		}
	case "child_page", "child_database":
		w.Str("title", c.Title)
	}
	if info.color {
		w.Str("text_color", orDefault(c.TextColor))
		w.Str("background_color", orDefault(c.BackgroundColor))
	}
	// Only when set, as the original service answers, so content written before these existed
	// keeps its bytes (and its ETag).
	if info.textAlign && c.TextAlign != "" {
		w.Str("text_align", c.TextAlign)
	}
	if info.captionAlign && c.CaptionAlign != "" {
		w.Str("caption_align", c.CaptionAlign)
	}
	return append(w.Dst, '}')
}

// ObjWriter writes one JSON object's members in the order they are written: the canonical
// JSON of blocks and properties alike (key order fixed, no reflection). Dst holds the object
// so far, its opening brace written by the caller, who also closes it.
type ObjWriter struct {
	Dst  []byte
	more bool
}

// Key writes k and the colon, after a comma unless k is the first member.
func (w *ObjWriter) Key(k string) {
	if w.more {
		w.Dst = append(w.Dst, ',')
	}
	w.more = true
	w.Dst = AppendString(w.Dst, k)
	w.Dst = append(w.Dst, ':')
}

// Str writes member k with the string v.
func (w *ObjWriter) Str(k, v string) {
	w.Key(k)
	w.Dst = AppendString(w.Dst, v)
}

// Nullable writes member k with v, or null when v is "".
func (w *ObjWriter) Nullable(k, v string) {
	w.Key(k)
	if v == "" {
		w.Dst = append(w.Dst, "null"...)
	} else {
		w.Dst = AppendString(w.Dst, v)
	}
}

// Bool writes member k with v.
func (w *ObjWriter) Bool(k string, v bool) {
	w.Key(k)
	w.Dst = strconv.AppendBool(w.Dst, v)
}

// Raw writes member k with v, JSON already.
func (w *ObjWriter) Raw(k, v string) {
	w.Key(k)
	w.Dst = append(w.Dst, v...)
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
	w := ObjWriter{Dst: append(dst, '{')}
	switch f.Type {
	case "file_upload":
		w.Str("id", f.ID)
	case "file":
		if f.ID != "" {
			w.Str("oss_name", f.ID)
		}
		if f.URL != "" || f.ID == "" {
			w.Str("url", f.URL)
		}
		w.Nullable("expiry_time", f.ExpiryTime)
	default:
		w.Str("url", f.URL)
	}
	return append(w.Dst, '}')
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
	w := ObjWriter{Dst: append(dst, '{')}
	w.Str("type", it.Type)
	switch it.Type {
	case "text":
		t := it.Text
		if t == nil {
			t = &Text{}
		}
		w.Key("text")
		w.Dst = append(w.Dst, `{"content":`...)
		w.Dst = AppendString(w.Dst, t.Content)
		w.Dst = append(w.Dst, `,"link":`...)
		if t.Link == nil {
			w.Dst = append(w.Dst, "null"...)
		} else {
			w.Dst = append(w.Dst, `{"url":`...)
			w.Dst = AppendString(w.Dst, t.Link.URL)
			w.Dst = append(w.Dst, '}')
		}
		w.Dst = append(w.Dst, '}')
	case "equation":
		expr := ""
		if it.Equation != nil {
			expr = it.Equation.Expression
		}
		w.Key("equation")
		w.Dst = append(w.Dst, `{"expression":`...)
		w.Dst = AppendString(w.Dst, expr)
		w.Dst = append(w.Dst, '}')
	case "mention":
		w.Key("mention")
		w.Dst = appendMention(w.Dst, it.Mention)
	}
	a := &it.Annotations
	w.Key("annotations")
	w.Dst = append(w.Dst, `{"bold":`...)
	w.Dst = strconv.AppendBool(w.Dst, a.Bold)
	w.Dst = append(w.Dst, `,"italic":`...)
	w.Dst = strconv.AppendBool(w.Dst, a.Italic)
	w.Dst = append(w.Dst, `,"strikethrough":`...)
	w.Dst = strconv.AppendBool(w.Dst, a.Strikethrough)
	w.Dst = append(w.Dst, `,"underline":`...)
	w.Dst = strconv.AppendBool(w.Dst, a.Underline)
	w.Dst = append(w.Dst, `,"code":`...)
	w.Dst = strconv.AppendBool(w.Dst, a.Code)
	w.Dst = append(w.Dst, `,"text_color":`...)
	w.Dst = AppendString(w.Dst, orDefault(a.TextColor))
	w.Dst = append(w.Dst, `,"background_color":`...)
	w.Dst = AppendString(w.Dst, orDefault(a.BackgroundColor))
	w.Dst = append(w.Dst, '}')
	w.Str("plain_text", it.PlainText)
	w.Nullable("href", it.Href)
	return append(w.Dst, '}')
}

func appendMention(dst []byte, m *Mention) []byte {
	if m == nil {
		m = &Mention{}
	}
	w := ObjWriter{Dst: append(dst, '{')}
	w.Str("type", m.Type)
	w.Key(m.Type)
	switch m.Type {
	case "date":
		d := m.Date
		if d == nil {
			d = &Date{}
		}
		dw := ObjWriter{Dst: append(w.Dst, '{')}
		dw.Str("start", d.Start)
		dw.Nullable("end", d.End)
		dw.Nullable("time_zone", d.TimeZone)
		w.Dst = append(dw.Dst, '}')
	case "user":
		w.Dst = append(w.Dst, `{"object":"user","id":`...)
		w.Dst = AppendString(w.Dst, m.ID)
		w.Dst = append(w.Dst, '}')
	default:
		w.Dst = append(w.Dst, `{"id":`...)
		w.Dst = AppendString(w.Dst, m.ID)
		w.Dst = append(w.Dst, '}')
	}
	return append(w.Dst, '}')
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
