package markdown

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escaping is minimal: a character is escaped only where Parse (goldmark with GFM and the
// math extension) could read it as syntax, so "fast & simple", "snake_case", "a -> b" and
// "@user" are written as they are, while "&amp;", "<div>", "*x*" or "[x](y)" in text still
// come back as text. Inside <summary> (html mode) every such character is escaped as before,
// with character references.

// appendDestination writes a link destination that reads back as url.
func appendDestination(dst []byte, url string) []byte {
	angle := url == "" || strings.ContainsAny(url, " ()")
	if angle {
		dst = append(dst, '<')
	}
	for i := 0; i < len(url); i++ {
		switch c := url[i]; {
		case c == '\\' || c == '<' || c == '>' || c == '&' && startsCharRef(url[i:]):
			dst = append(dst, '\\', c)
		default:
			dst = append(dst, c)
		}
	}
	if angle {
		dst = append(dst, '>')
	}
	return dst
}

// cellPipes escapes the '|'s of a link destination written in a table cell, which would
// otherwise end the cell; the destination reads \| back as |.
func cellPipes(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("|"), []byte(`\|`))
}

var (
	autoURL   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\x00-\x20<>\x7f]*$`)
	autoEmail = regexp.MustCompile(`^[A-Za-z0-9.!#$%&'*+/=?^_` + "`" + `{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$`)
)

// autolink is what to write between < and > for a link whose text is its own URL (or,
// for mailto:, its address), as GFM's bare URLs and <…> autolinks import; "" otherwise.
// Autolinks take no escapes, so a URL with a character that needs one is written as a link.
func (w *inlineWriter) autolink(rs []run) string {
	if len(rs) != 1 || w.mode.html || rs[0].marked() || rs[0].code || rs[0].equation || rs[0].br {
		return ""
	}
	text, url := rs[0].text, rs[0].link
	if w.mode.cell && strings.Contains(url, "|") || strings.Contains(url, `\`) {
		return ""
	}
	switch {
	case text == url && autoURL.MatchString(url):
		return url
	case "mailto:"+text == url && autoEmail.MatchString(text):
		return text
	}
	return ""
}

// bangSafe escapes a '!' that ends dst, where a link is about to start: "![" would make it
// an image.
func bangSafe(dst []byte, start int) []byte {
	n := len(dst)
	if n == start || dst[n-1] != '!' {
		return dst
	}
	slashes := 0
	for i := n - 2; i >= start && dst[i] == '\\'; i-- {
		slashes++
	}
	if slashes%2 == 1 {
		return dst // already escaped
	}
	return append(append(dst[:n-1], '\\'), '!')
}

// startsCharRef reports whether s starts with a character reference Parse would resolve.
func startsCharRef(s string) bool {
	_, n := charRef([]byte(s[:min(len(s), 41)]))
	return n > 0
}

// escape appends s with its Markdown-significant characters escaped (backslashes in
// Markdown, character references in HTML). atLine says s is written into w.dst, where the
// start of the inline is a line start.
func (w *inlineWriter) escape(dst []byte, s string, atLine bool) []byte {
	lineStart := atLine && len(dst) == w.start
	before := rune('*') // what precedes s: unknown (an emphasis body) is taken as a delimiter
	if atLine {
		before, _ = lastRune(dst[w.start:])
	}
	digits := 0  // leading digits of a line, which with '.' or ')' start an ordered list
	hashes := -1 // in a heading, the '#'s before this index close it unless escaped
	w.linkEnd = strings.LastIndex(s, "](")
	for i, r := range s {
		switch {
		case r == '\n':
			dst = append(dst, "<br>"...)
		case r == 0:
			dst = append(dst, "\uFFFD"...) // what any CommonMark parser reads NUL as
		case w.mode.html && strings.ContainsRune(`&<>"`, r):
			dst = appendHTMLEscaped(dst, string(r))
		case w.special(s, i, r, before, lineStart && i == 0, lineStart && digits > 0 && digits == i, &hashes):
			if w.mode.html || r >= utf8.RuneSelf || r < ' ' || r == 0x7f || r == ' ' || r == '\t' {
				dst = append(append(append(dst, "&#"...), strconv.Itoa(int(r))...), ';')
			} else {
				dst = append(dst, '\\', byte(r))
			}
		default:
			dst = utf8.AppendRune(dst, r)
		}
		if r >= '0' && r <= '9' && digits == i {
			digits++
		}
	}
	return dst
}

// special reports whether r at s[i] must be escaped. before: the character written before s
// (0 for none); atStart: s[i] starts a line; afterDigits: s[:i] is the digits that start a line.
func (w *inlineWriter) special(s string, i int, r rune, before rune, atStart, afterDigits bool, hashes *int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	next, _ := utf8.DecodeRuneInString(s[i+size:])
	hasNext := i+size < len(s)
	prev := before
	if i > 0 {
		prev, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	switch {
	case r == '\r' || r < ' ' && r != '\t' || r == 0x7f:
		return true
	case r == ' ' || r == '\t':
		return atStart // leading spaces would be stripped (or indent code)
	case strings.ContainsRune("`*~$", r):
		return true // code spans, emphasis, strikethrough, math
	case w.mode.html && strings.ContainsRune(`\_|@[]`, r) || w.mode.bracket && (r == '[' || r == ']'):
		return true
	case r == '[':
		// Nothing defines a reference, so only "](" makes a link; at a line's start "[x]:" is a
		// definition and "[ ]" a task box.
		return atStart || i < w.linkEnd
	case r == ']':
		return next == '(' && hasNext // the '[' may stand in an earlier run: "[a*](b)*"
	case r == '\\':
		// Only before punctuation is a backslash an escape; before a letter it is itself.
		// At the end, what follows (a delimiter, a character reference) is not known.
		return !hasNext || !(unicode.IsLetter(next) || unicode.IsDigit(next))
	case r == '_':
		// Inside a word ("snake_case") an underscore can neither open nor close emphasis.
		return i == 0 || !hasNext || !wordRune(prev) || !wordRune(next)
	case r == '<':
		// An HTML tag, comment, declaration or autolink starts with one of these.
		return !hasNext || next < utf8.RuneSelf && (unicode.IsLetter(next) || strings.ContainsRune("/!?", next))
	case r == '&':
		return startsCharRef(s[i:])
	case r == '@':
		// GFM reads "name@host.tld" as an e-mail link, but not in a link's text.
		return !w.mode.bracket && emailRune(prev)
	case r == '|':
		return w.mode.cell // a cell separator; elsewhere no table can start inside a line
	case r == '>':
		return atStart // a block quote
	case r == '#':
		return atStart || w.mode.heading && closesHeading(s, i, hashes)
	case r == '-' || r == '+' || r == '=':
		return atStart
	case r == '.' || r == ')':
		if afterDigits && i < 10 {
			return true
		}
		return r == '.' && !w.mode.bracket && i >= 3 && strings.EqualFold(s[i-3:i], "www") // GFM autolinks www.
	case r == ':':
		return !w.mode.bracket && strings.HasPrefix(s[i:], "://") // GFM autolinks bare URLs
	}
	return false
}

// emailRune is a character of an e-mail address's local part.
func emailRune(r rune) bool {
	return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".!#$%&'*+/=?^_`{|}~-", r))
}

// wordRune is a character that makes an underscore beside it intraword: a letter or digit,
// which is written as it is (a control character beside it would be a character reference,
// whose ';' is punctuation).
func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// closesHeading reports whether the '#' at s[i] is in a run of '#'s that could be read as a
// heading's closing sequence: one after a space (or at the start of s) that ends s or is
// followed by a space. *to remembers the end of such a run.
func closesHeading(s string, i int, to *int) bool {
	if i < *to {
		return true
	}
	if i > 0 && s[i-1] == '#' {
		return false // inside a run that was not escaped
	}
	if i > 0 && s[i-1] != ' ' && s[i-1] != '\t' {
		return false
	}
	j := i
	for j < len(s) && s[j] == '#' {
		j++
	}
	if j < len(s) && s[j] != ' ' && s[j] != '\t' {
		return false
	}
	*to = j
	return true
}

func appendHTMLEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			dst = append(dst, "&amp;"...)
		case '<':
			dst = append(dst, "&lt;"...)
		case '>':
			dst = append(dst, "&gt;"...)
		case '"':
			dst = append(dst, "&quot;"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// codeSafe replaces the control characters a code span cannot escape with spaces (newlines
// aside, which become <br> between spans); Parse applies the same to what it reads.
func codeSafe(s string) string {
	return strings.Map(func(c rune) rune {
		if c < ' ' && c != '\t' && c != '\n' || c == 0x7f {
			return ' '
		}
		return c
	}, s)
}
