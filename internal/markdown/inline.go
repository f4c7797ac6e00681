package markdown

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/blocks"
)

// Rich text → inline Markdown. A character that Markdown would read as syntax there is
// escaped (see escape.go), so that text survives export → import unchanged; annotations
// become `**`, `*`, `~~` and backticks, and fall back to <strong>, <em> and <del> where
// CommonMark's flanking rules would not read the delimiters back (say `a**"b"**c`). Newlines become <br>, which
// keeps every block on one line: the simplest way to be safe inside list items, quotes and
// table cells.

type inlineMode struct {
	html    bool // inside <summary>: HTML tags and character references only
	heading bool // escape a run of '#' that could close the heading
	cell    bool // a table cell: '|' is escaped everywhere, code spans included
	bracket bool // a link's text or an image's alt: brackets escaped, no autolinks there
}

// run is a stretch of rich text with one set of marks.
type run struct {
	text     string
	link     string
	bold     bool
	italic   bool
	strike   bool
	code     bool
	equation bool
	br       bool // a newline
}

func (a run) sameMarks(b run) bool {
	return a.link == b.link && a.bold == b.bold && a.italic == b.italic && a.strike == b.strike &&
		a.code == b.code && !a.equation && !b.equation && !a.br && !b.br
}

func (a run) marked() bool { return a.bold || a.italic || a.strike }

// runs flattens rich text into runs, merging neighbours with equal marks and splitting at
// newlines. Underline and colours have no Markdown form and are dropped.
func runs(rt blocks.RichText, out []run) []run {
	for i := range rt {
		it := &rt[i]
		r := run{link: it.Href, bold: it.Annotations.Bold, italic: it.Annotations.Italic,
			strike: it.Annotations.Strikethrough, code: it.Annotations.Code}
		switch it.Type {
		case "equation":
			if it.Equation == nil {
				continue
			}
			r.equation, r.code = true, false
			// One line, and no space next to the dollars, or it would not read back as math.
			r.text = strings.TrimSpace(strings.Map(func(c rune) rune {
				if c == '\n' || c == '\r' {
					return ' '
				}
				return c
			}, it.Equation.Expression))
			if r.text == "" {
				continue
			}
			out = append(out, r)
			continue
		case "text":
			if it.Text != nil {
				r.text = it.Text.Content
			}
		default:
			r.text = it.PlainText
		}
		if r.code {
			r.text = codeSafe(r.text)
		}
		for {
			line, rest, found := strings.Cut(r.text, "\n")
			piece := r
			piece.text = line
			if line != "" {
				if n := len(out); n > 0 && out[n-1].sameMarks(piece) {
					out[n-1].text += line
				} else {
					out = append(out, piece)
				}
			}
			if !found {
				break
			}
			out = append(out, run{br: true, link: r.link})
			r.text = rest
		}
	}
	return out
}

type inlineWriter struct {
	dst       []byte
	start     int // where this inline began: line-start rules apply there
	mode      inlineMode
	lastDelim bool // dst ends with an emphasis delimiter
	linkEnd   int  // escape: where the last "](" of the text being escaped is, or -1
}

// appendInline appends rt as inline Markdown.
func appendInline(dst []byte, rt blocks.RichText, mode inlineMode, scratch []run) ([]byte, []run) {
	rs := runs(rt, scratch[:0])
	w := inlineWriter{dst: dst, start: len(dst), mode: mode}
	for i := 0; i < len(rs); {
		if rs[i].link == "" || rs[i].br && (i+1 == len(rs) || rs[i+1].link != rs[i].link) {
			w.run(rs, i, len(rs))
			i++
			continue
		}
		j := i
		for j < len(rs) && rs[j].link == rs[i].link {
			j++
		}
		w.link(rs, i, j)
		i = j
	}
	// A trailing space or tab would be stripped by the parser.
	if n := len(w.dst); n > w.start && (w.dst[n-1] == ' ' || w.dst[n-1] == '\t') {
		c := w.dst[n-1]
		w.dst = append(w.dst[:n-1], "&#"+strconv.Itoa(int(c))+";"...)
	}
	return w.dst, rs
}

func (w *inlineWriter) link(rs []run, i, j int) {
	url := rs[i].link
	if auto := w.autolink(rs[i:j]); auto != "" {
		w.dst = append(append(append(w.dst, '<'), auto...), '>')
		w.lastDelim = false
		return
	}
	if w.mode.html {
		w.dst = append(w.dst, `<a href="`...)
		w.dst = appendHTMLEscaped(w.dst, url)
		w.dst = append(w.dst, `">`...)
	} else {
		w.dst = append(bangSafe(w.dst, w.start), '[')
	}
	w.lastDelim = false
	outer := w.mode
	w.mode.bracket = !w.mode.html
	for k := i; k < j; k++ {
		w.run(rs, k, j)
	}
	w.mode = outer
	if w.mode.html {
		w.dst = append(w.dst, "</a>"...)
	} else {
		w.dst = append(w.dst, "]("...)
		n := len(w.dst)
		w.dst = appendDestination(w.dst, url)
		if w.mode.cell {
			w.dst = append(w.dst[:n], cellPipes(w.dst[n:])...)
		}
		w.dst = append(w.dst, ')')
	}
	w.lastDelim = false
}

// run writes rs[i]; end is where its link group (or the text) ends.
func (w *inlineWriter) run(rs []run, i, end int) {
	r := rs[i]
	if r.br {
		w.dst = append(w.dst, "<br>"...)
		w.lastDelim = false
		return
	}
	if r.equation {
		w.equation(r)
		return
	}
	text := r.text
	core := strings.TrimFunc(text, unicode.IsSpace)
	if r.code {
		core = text // a code span holds its spaces exactly
	}
	if core == "" || !r.marked() && !r.code {
		w.text(text)
		return
	}
	lead := text[:strings.Index(text, core)]
	trail := text[len(lead)+len(core):]
	w.text(lead)
	var body []byte
	if r.code {
		body = w.codeSpan(core)
	} else {
		body = w.escape(nil, core, false)
	}
	open, close := delimiters(r, w.mode.html)
	if !w.mode.html && open != "" && !w.flanks(open, body, trail, rs, i, end) {
		open, close = delimiters(r, true)
	}
	w.dst = append(w.dst, open...)
	w.dst = append(w.dst, body...)
	w.dst = append(w.dst, close...)
	w.lastDelim = close != "" && close[len(close)-1] != '>'
	w.text(trail)
}

func delimiters(r run, html bool) (string, string) {
	var open, close string
	if html {
		if r.strike {
			open, close = "<del>", "</del>"
		}
		if r.bold {
			open, close = open+"<strong>", "</strong>"+close
		}
		if r.italic {
			open, close = open+"<em>", "</em>"+close
		}
		return open, close
	}
	if r.strike {
		open, close = "~~", "~~"
	}
	switch {
	case r.bold && r.italic:
		open, close = open+"***", "***"+close
	case r.bold:
		open, close = open+"**", "**"+close
	case r.italic:
		open, close = open+"*", "*"+close
	}
	return open, close
}

// flanks reports whether CommonMark reads open…close around body as emphasis here: the
// opening run must be left-flanking and the closing run right-flanking, and neither may
// touch another delimiter run.
func (w *inlineWriter) flanks(open string, body []byte, trail string, rs []run, i, end int) bool {
	if w.lastDelim || len(body) == 0 {
		return false
	}
	multi := strings.Contains(open, "~") && len(open) > 2
	before, hasBefore := lastRune(w.dst[w.start:])
	first, _ := utf8.DecodeRune(body)
	last, _ := utf8.DecodeLastRune(body)
	after, hasAfter := rune(0), false
	switch {
	case trail != "":
		after, hasAfter = ' ', true
	case i+1 < end && rs[i+1].link != rs[i].link:
		after, hasAfter = '[', true
	case i+1 < end:
		next := rs[i+1]
		if c, _ := utf8.DecodeRuneInString(next.text); !next.br && !next.equation && unicode.IsSpace(c) {
			after = ' ' // the next run's leading space is written before its delimiters
			break
		}
		if next.marked() {
			return false // two delimiter runs would touch
		}
		after, hasAfter = '&', true // the next run starts with text, a code span, <br> or `$`: treat as punctuation
		if !next.code && !next.br && !next.equation && next.text != "" {
			if c, _ := utf8.DecodeRuneInString(next.text); !isPunct(c) && !unicode.IsSpace(c) {
				after = c
			}
		}
	case end < len(rs) || rs[i].link != "":
		after, hasAfter = ']', true // end of a link text, or a following link's '['
	}
	if hasBefore && strings.ContainsRune("*_~", before) || hasAfter && strings.ContainsRune("*_~", after) {
		return false // an escaped delimiter character beside a run confuses parsers
	}
	looseBefore := !hasBefore || unicode.IsSpace(before) || isPunct(before)
	looseAfter := !hasAfter || unicode.IsSpace(after) || isPunct(after)
	if (multi || isPunct(first)) && !looseBefore {
		return false
	}
	if (multi || isPunct(last)) && !looseAfter {
		return false
	}
	return true
}

func lastRune(b []byte) (rune, bool) {
	if len(b) == 0 {
		return 0, false
	}
	r, _ := utf8.DecodeLastRune(b)
	return r, true
}

func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return r > ' ' && r < 0x7f && !('0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

func (w *inlineWriter) equation(r run) {
	// A $ inside ends the equation unless escaped; one already escaped stays as it is.
	var eb strings.Builder
	slashes := 0
	for i := 0; i < len(r.text); i++ {
		c := r.text[i]
		if c == '$' && slashes%2 == 0 {
			eb.WriteByte('\\')
		}
		if c == '\\' {
			slashes++
		} else {
			slashes = 0
		}
		eb.WriteByte(c)
	}
	expr := eb.String()
	if n := len(expr) - len(strings.TrimRight(expr, `\`)); n%2 == 1 {
		expr += "{}" // the closing $ must not be escaped; {} is an empty group to KaTeX
	}
	open, close := delimiters(r, true)
	if w.mode.html {
		w.dst = append(w.dst, open...)
		w.dst = append(w.dst, '$')
		w.dst = appendHTMLEscaped(w.dst, expr)
		w.dst = append(w.dst, '$')
		w.dst = append(w.dst, close...)
		w.lastDelim = false
		return
	}
	// Emphasis around an equation uses tags: `$` is punctuation, so delimiters rarely flank.
	w.dst = append(w.dst, open...)
	w.dst = append(w.dst, '$')
	w.dst = append(w.dst, expr...)
	w.dst = append(w.dst, '$')
	w.dst = append(w.dst, close...)
	w.lastDelim = false
}

// codeSpan renders a code span: a backtick fence longer than any run inside, padded when the
// content starts or ends with a backtick or is wrapped in spaces.
func (w *inlineWriter) codeSpan(s string) []byte {
	if w.mode.html {
		b := []byte("<code>")
		b = w.escape(b, s, false)
		return append(b, "</code>"...)
	}
	longest, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			cur++
			longest = max(longest, cur)
		} else {
			cur = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	pad := strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "")
	b := make([]byte, 0, len(s)+2*len(fence)+2)
	b = append(b, fence...)
	if pad {
		b = append(b, ' ')
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			b = append(b, ' ') // control characters cannot be escaped inside a code span
		} else if c == '|' && w.mode.cell {
			b = append(b, '\\', '|') // GFM splits cells first; it reads \| in a span as |
		} else {
			b = append(b, c)
		}
	}
	if pad {
		b = append(b, ' ')
	}
	return append(b, fence...)
}

func (w *inlineWriter) text(s string) {
	if s != "" {
		w.dst = w.escape(w.dst, s, true)
		w.lastDelim = false
	}
}
