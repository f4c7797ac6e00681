package transfer

import (
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
)

// inferSchema makes a database's schema from its columns (the first is the title) and the
// text of its rows: a column every non-empty cell of which reads as a number is a number, and
// so on for checkboxes (Yes/No), dates, URLs and emails; short values that repeat make a
// select; anything else is text. Ids are derived from dbID, so a re-run makes the same ones.
func inferSchema(dbID string, columns []string, rows []map[string]string) quire.Schema {
	schema := quire.Schema{}
	for i, col := range columns {
		prop := &quire.Property{ID: derivedID(dbID, "property", col), Name: col, Type: quire.PropRichText}
		if i == 0 {
			prop.ID, prop.Type = "title", quire.PropTitle
			schema = append(schema, prop)
			continue
		}
		var cells []string
		for _, r := range rows {
			if v := strings.TrimSpace(r[col]); v != "" {
				cells = append(cells, v)
			}
		}
		prop.Type = inferType(cells)
		if prop.Type == quire.PropSelect {
			seen := map[string]bool{}
			for _, c := range cells {
				if !seen[c] {
					seen[c] = true
					prop.Options = append(prop.Options, quire.Option{ID: derivedID(dbID, "option", col, c), Name: c, Color: "default"})
				}
			}
		}
		if prop.Type == quire.PropNumber {
			prop.NumberFormat = "number"
		}
		schema = append(schema, prop)
	}
	return schema
}

func inferType(cells []string) string {
	if len(cells) == 0 {
		return quire.PropRichText
	}
	all := func(ok func(string) bool) bool {
		for _, c := range cells {
			if !ok(c) {
				return false
			}
		}
		return true
	}
	distinct := map[string]bool{}
	for _, c := range cells {
		distinct[c] = true
	}
	switch {
	case all(func(c string) bool { _, err := strconv.ParseFloat(c, 64); return err == nil }):
		return quire.PropNumber
	case all(func(c string) bool { return c == "Yes" || c == "No" }):
		return quire.PropCheckbox
	case all(func(c string) bool { _, ok := parseDate(c); return ok }):
		return quire.PropDate
	case all(func(c string) bool { u, err := url.Parse(c); return err == nil && u.Host != "" && u.Scheme != "" }):
		return quire.PropURL
	case all(func(c string) bool { a, err := mail.ParseAddress(c); return err == nil && a.Address == c }):
		return quire.PropEmail
	case len(distinct) < len(cells) && len(distinct) <= 50 &&
		all(func(c string) bool { return utf8.RuneCountInString(c) <= 100 && !strings.Contains(c, ",") }):
		return quire.PropSelect
	}
	return quire.PropRichText
}

// dateLayouts are the dates a CSV or front matter writes: ISO, and Notion's own.
var dateLayouts = []struct {
	layout string
	day    bool
}{
	{"2006-01-02", true}, {"January 2, 2006", true}, {"2006/01/02", true},
	{time.RFC3339, false}, {"2006-01-02T15:04:05", false}, {"2006-01-02 15:04", false},
	{"January 2, 2006 3:04 PM", false},
}

// parseDate reads a date as the API's start: a day, or a date-time in UTC.
func parseDate(s string) (string, bool) {
	for _, l := range dateLayouts {
		if t, err := time.Parse(l.layout, s); err == nil {
			if l.day {
				return t.Format("2006-01-02"), true
			}
			return t.UTC().Format("2006-01-02T15:04:05.000Z"), true
		}
	}
	return "", false
}

// rowValues are a row's cells as stored values of schema; a cell that does not read as its
// column's type is left out.
func rowValues(schema quire.Schema, row map[string]string) properties.Values {
	vals := properties.Values{}
	for _, prop := range schema {
		c := strings.TrimSpace(row[prop.Name])
		if c == "" {
			continue
		}
		v := properties.Value{Type: prop.Type}
		switch prop.Type {
		case quire.PropTitle, quire.PropRichText:
			v.RichText = blocks.Plain(c)
		case quire.PropNumber:
			v.Number, _ = strconv.ParseFloat(c, 64)
		case quire.PropCheckbox:
			if c != "Yes" {
				continue
			}
			v.Checkbox = true
		case quire.PropDate:
			start, _ := parseDate(c)
			v.Date = &properties.Date{Start: start}
		case quire.PropURL, quire.PropEmail:
			v.Text = c
		case quire.PropSelect:
			for _, o := range prop.Options {
				if o.Name == c {
					v.ID = o.ID
				}
			}
		}
		vals[prop.ID] = v
	}
	return vals
}
