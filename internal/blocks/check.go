package blocks

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// Leaf checks shared by the request decoder and Validate, so that a rule and its path are
// written once.

func checkLen(p *quire.Problems, path, s string, max int) {
	// Characters are Unicode code points: never stricter than Notion's UTF-16 count, so
	// anything Notion accepts is accepted here.
	if len(s) <= max {
		return
	}
	if n := utf8.RuneCountInString(s); n > max {
		p.AddDetail(quire.Beyond(path, quire.ReasonTooLong, int64(max), int64(n)), "Text has at most "+strconv.Itoa(max)+" characters.")
	}
}

// ValidURL reports whether s is acceptable as a link or a block's URL: non-empty, at most
// MaxURLLength characters, no control characters or spaces, and not a script or data URL
// (rendered Markdown and HTML clients would run or inline those).
func ValidURL(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > MaxURLLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	if i := strings.IndexByte(s, ':'); i > 0 {
		switch strings.ToLower(s[:i]) {
		case "javascript", "vbscript", "data":
			return false
		}
	}
	return true
}

func checkURL(p *quire.Problems, path, s string) {
	switch {
	case s == "":
		p.Add(path, quire.ReasonRequired, "A URL is required.")
	case utf8.RuneCountInString(s) > MaxURLLength:
		p.AddDetail(quire.Beyond(path, quire.ReasonTooLong, MaxURLLength, int64(utf8.RuneCountInString(s))),
			"A URL has at most "+strconv.Itoa(MaxURLLength)+" characters.")
	case !ValidURL(s):
		p.Add(path, quire.ReasonInvalidValue, "URL is not valid.")
	}
}

func checkID(p *quire.Problems, path, id string) {
	if !quire.ValidID(id) {
		p.Add(path, quire.ReasonInvalidValue, "Not a valid id.")
	}
}

// validDate accepts the forms Notion's date values take: a date, or a date-time with or
// without an offset (a time_zone may then name the zone).
func validDate(s string) bool {
	for _, layout := range []string{"2006-01-02", time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

func checkItem(p *quire.Problems, path string, it *Item) {
	switch it.Type {
	case "text":
		if it.Text == nil {
			p.Add(jsonbody.Join(path, "text"), quire.ReasonRequired, "Text is required.")
			return
		}
		checkLen(p, jsonbody.Join(path, "text", "content"), it.Text.Content, MaxTextLength)
		if it.Text.Link != nil {
			checkURL(p, jsonbody.Join(path, "text", "link", "url"), it.Text.Link.URL)
		}
	case "equation":
		if it.Equation == nil {
			p.Add(jsonbody.Join(path, "equation"), quire.ReasonRequired, "An equation is required.")
			return
		}
		checkLen(p, jsonbody.Join(path, "equation", "expression"), it.Equation.Expression, MaxExpressionLength)
	case "mention":
		m := it.Mention
		if m == nil {
			p.Add(jsonbody.Join(path, "mention"), quire.ReasonRequired, "A mention is required.")
			return
		}
		mp := jsonbody.Join(path, "mention")
		switch m.Type {
		case "user", "page", "database":
			checkID(p, jsonbody.Join(mp, m.Type, "id"), m.ID)
		case "date":
			if m.Date == nil {
				p.Add(jsonbody.Join(mp, "date"), quire.ReasonRequired, "A date is required.")
				return
			}
			checkDate(p, jsonbody.Join(mp, "date"), m.Date)
		default:
			p.Add(jsonbody.Join(mp, "type"), quire.ReasonInvalidValue, "Unknown mention type.")
		}
	default:
		p.Add(jsonbody.Join(path, "type"), quire.ReasonInvalidValue, "Unknown rich text type.")
	}
	if !ValidTextColor(it.Annotations.TextColor) {
		p.Add(jsonbody.Join(path, "annotations", "text_color"), quire.ReasonInvalidValue, "Unknown text colour.")
	}
	if !ValidBackgroundColor(it.Annotations.BackgroundColor) {
		p.Add(jsonbody.Join(path, "annotations", "background_color"), quire.ReasonInvalidValue, "Unknown background colour.")
	}
}

func checkDate(p *quire.Problems, path string, d *Date) {
	if !validDate(d.Start) {
		p.Add(jsonbody.Join(path, "start"), quire.ReasonInvalidValue, "Not a date.")
	}
	if d.End != "" && !validDate(d.End) {
		p.Add(jsonbody.Join(path, "end"), quire.ReasonInvalidValue, "Not a date.")
	}
	if len(d.TimeZone) > 64 {
		p.AddDetail(quire.Beyond(jsonbody.Join(path, "time_zone"), quire.ReasonTooLong, 64, int64(len(d.TimeZone))), "A time zone has at most 64 characters.")
	}
}

// validEmoji is a loose check: Go has no emoji property table, so it accepts one short
// sequence of non-space characters, which covers flags, skin tones and ZWJ families.
func validEmoji(s string) bool {
	n := utf8.RuneCountInString(s)
	return n > 0 && n <= 16 && !strings.ContainsAny(s, " \t\r\n")
}

func checkFile(p *quire.Problems, path string, f *FileSource) {
	switch f.Type {
	case "external":
		checkURL(p, jsonbody.Join(path, "external", "url"), f.URL)
	case "file_upload":
		checkID(p, jsonbody.Join(path, "file_upload", "id"), f.ID)
	case "file":
		if f.ID == "" { // named by oss_name otherwise
			checkURL(p, jsonbody.Join(path, "file", "url"), f.URL)
		}
	default:
		p.Add(jsonbody.Join(path, "type"), quire.ReasonInvalidValue, "Unknown file type.")
	}
}

// checkChildren checks what may stand below parent (nil for a page): table rows of the
// table's width below a table, columns below a column list, and neither anywhere else.
// created says the parent is created by the same request, which must then bring its minimum
// of children. Nil entries are blocks that failed to decode and are skipped.
func checkChildren(p *quire.Problems, path string, parent *Block, children []*Block, created bool) {
	ptype := ""
	if parent != nil {
		ptype = parent.Type
	}
	want := childType(ptype)
	n := 0
	for i, c := range children {
		if c == nil {
			continue
		}
		n++
		cp := jsonbody.Index(path, i)
		switch {
		case want != "" && c.Type != want:
			p.Add(jsonbody.Join(cp, "type"), quire.ReasonInvalidValue, "A "+ptype+" holds only "+want+" blocks.")
		case want == "" && (c.Type == "table_row" || c.Type == "column"):
			p.Add(jsonbody.Join(cp, "type"), quire.ReasonInvalidValue, "A "+c.Type+" belongs in a "+map[string]string{"table_row": "table", "column": "column_list"}[c.Type]+".")
		case c.Type == "table_row" && parent.Content.TableWidth > 0 && len(c.Content.Cells) != parent.Content.TableWidth:
			p.Add(jsonbody.Join(cp, "table_row", "cells"), quire.ReasonInvalidValue, "A row has as many cells as its table is wide.")
		}
	}
	if !created {
		return
	}
	switch ptype {
	case "table", "column":
		if n == 0 && len(children) == 0 {
			p.Add(path, quire.ReasonInvalidValue, "A "+ptype+" needs at least one child.")
		}
	case "column_list":
		if len(children) < 2 {
			p.Add(path, quire.ReasonInvalidValue, "A column_list needs at least two columns.")
		}
	}
}
