package blocks

import "strings"

// Limits of a request (contract §4, Notion's request limits).
const (
	MaxTextLength       = 2000 // text.content, in characters (Unicode code points)
	MaxURLLength        = 2000 // any URL, link.url included
	MaxExpressionLength = 1000 // equation.expression, inline or block
	MaxArray            = 100  // any array: rich text, children, cells
	MaxRequestBlocks    = 1000 // blocks in one request, nested ones included
	MaxRequestDepth     = 2    // levels of nested children below the top level of a request
)

// RichText is an array of rich-text items.
type RichText []Item

// Item is one rich-text item: Type "text", "mention" or "equation" with the matching field set.
// PlainText and Href are derived on decode (see Fill); a caller that resolves mentions may
// replace them before encoding or rendering.
type Item struct {
	Type        string
	Text        *Text
	Mention     *Mention
	Equation    *Equation
	Annotations Annotations
	PlainText   string
	Href        string // "" encodes as null
}

// Text is a text item's content and optional link.
type Text struct {
	Content string
	Link    *Link // nil encodes as null
}

// Link is a text item's link.
type Link struct {
	URL string
}

// Equation is an inline equation's KaTeX expression.
type Equation struct {
	Expression string
}

// Mention points at a user, page, database or date. ID is set for the first three.
type Mention struct {
	Type string // "user", "page", "database", "date"
	ID   string
	Date *Date
}

// Date is a date mention; End and TimeZone are "" for null.
type Date struct {
	Start    string
	End      string
	TimeZone string
}

// Annotations are an item's styles. Colours "" and "default" both mean none.
type Annotations struct {
	Bold            bool
	Italic          bool
	Strikethrough   bool
	Underline       bool
	Code            bool
	TextColor       string
	BackgroundColor string
}

// Plain returns a rich text of one unstyled text item (none when s is empty).
func Plain(s string) RichText {
	if s == "" {
		return nil
	}
	return RichText{NewText(s, Annotations{}, "")}
}

// NewText returns a filled text item with the given annotations and link ("" for none).
func NewText(content string, a Annotations, link string) Item {
	it := Item{Type: "text", Text: &Text{Content: content}, Annotations: a}
	if link != "" {
		it.Text.Link = &Link{URL: link}
	}
	it.Fill()
	return it
}

// NewEquation returns a filled inline equation item.
func NewEquation(expr string, a Annotations) Item {
	it := Item{Type: "equation", Equation: &Equation{Expression: expr}, Annotations: a}
	it.Fill()
	return it
}

// Fill sets PlainText and Href from the item's content. Mentions cannot be resolved without
// I/O, so they get Notion's placeholders for what the caller cannot see ("@Anonymous",
// "Untitled"); a date reads as its start, with " → end" when it has one.
func (it *Item) Fill() {
	it.Href = ""
	switch it.Type {
	case "text":
		if it.Text == nil {
			return
		}
		it.PlainText = it.Text.Content
		if it.Text.Link != nil {
			it.Href = it.Text.Link.URL
		}
	case "equation":
		if it.Equation != nil {
			it.PlainText = it.Equation.Expression
		}
	case "mention":
		if it.Mention == nil {
			return
		}
		switch it.Mention.Type {
		case "user":
			it.PlainText = "@Anonymous"
		case "page", "database":
			it.PlainText = "Untitled"
		case "date":
			if d := it.Mention.Date; d != nil {
				it.PlainText = d.Start
				if d.End != "" {
					it.PlainText += " → " + d.End
				}
			}
		}
	}
}

// PlainText concatenates the items' plain text.
func (rt RichText) PlainText() string {
	if len(rt) == 1 {
		return rt[0].PlainText
	}
	var sb strings.Builder
	for i := range rt {
		sb.WriteString(rt[i].PlainText)
	}
	return sb.String()
}
