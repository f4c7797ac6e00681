package properties

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
)

// valueFor is the value of property p in vals as p reads it now: converted when p's type
// changed since it was written, without options p no longer has; ok is false when nothing
// is left.
func valueFor(p *quire.Property, vals Values) (Value, bool) {
	v, ok := vals[p.ID]
	if !ok {
		return Value{}, false
	}
	if v.Type != p.Type {
		if v, ok = convert(v, p.Type); !ok {
			return Value{}, false
		}
	}
	switch p.Type {
	case quire.PropSelect, quire.PropStatus:
		if findOption(p.Options, v.ID, "") == nil {
			return Value{}, false
		}
	case quire.PropMultiSelect:
		kept := slices.DeleteFunc(slices.Clone(v.IDs), func(id string) bool { return findOption(p.Options, id, "") == nil })
		if len(kept) == 0 {
			return Value{}, false
		}
		v.IDs = kept
	case quire.PropRelation:
		if v.DatabaseID != p.RelationDatabaseID {
			return Value{}, false
		}
	}
	return v, true
}

func isText(t string) bool {
	switch t {
	case quire.PropTitle, quire.PropRichText, quire.PropURL, quire.PropEmail, quire.PropPhoneNumber:
		return true
	}
	return false
}

// convert turns v into a value of type to, when the meaning survives: text between the text
// types (a URL or email only when it is one), text and numbers, option ids between the
// option types (a select or status keeps the first). Options themselves are checked by
// valueFor.
func convert(v Value, to string) (Value, bool) {
	out := Value{Type: to}
	switch {
	case (isText(v.Type) || v.Type == quire.PropNumber) && isText(to):
		text := v.Text
		switch v.Type {
		case quire.PropTitle, quire.PropRichText:
			if to == quire.PropTitle || to == quire.PropRichText {
				out.RichText = v.RichText // the styles survive
				return out, true
			}
			text = v.RichText.PlainText()
		case quire.PropNumber:
			text = string(appendNumber(nil, v.Number))
		}
		return textValue(to, strings.TrimSpace(text))
	case isText(v.Type) && to == quire.PropNumber:
		text := v.Text
		if v.Type == quire.PropTitle || v.Type == quire.PropRichText {
			text = v.RichText.PlainText()
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return Value{}, false
		}
		out.Number = f
		return out, true
	case hasOptions(v.Type) && hasOptions(to):
		ids := v.IDs
		if v.Type != quire.PropMultiSelect {
			ids = []string{v.ID}
		}
		if to == quire.PropMultiSelect {
			out.IDs = ids
		} else {
			out.ID = ids[0]
		}
		return out, true
	}
	return Value{}, false
}

// textValue is text as a value of text type to, if it is a valid one.
func textValue(to, text string) (Value, bool) {
	if text == "" {
		return Value{}, false
	}
	switch to {
	case quire.PropTitle, quire.PropRichText:
		if length(text) > blocks.MaxTextLength {
			return Value{}, false
		}
		return Value{Type: to, RichText: blocks.Plain(text)}, true
	case quire.PropURL:
		if !blocks.ValidURL(text) {
			return Value{}, false
		}
	case quire.PropEmail:
		if !validEmail(text) {
			return Value{}, false
		}
	case quire.PropPhoneNumber:
		if !validPhone(text) {
			return Value{}, false
		}
	}
	return Value{Type: to, Text: text}, true
}

// validEmail is a loose check, as Notion's: one @ with something on either side, a dot-free
// domain allowed (intranet hosts), no spaces or control characters.
func validEmail(s string) bool {
	at := strings.IndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || strings.Count(s, "@") != 1 || length(s) > MaxEmailLength {
		return false
	}
	return !hasSpaceOrControl(s)
}

// validPhone accepts any short text without control characters: Notion does not check phone
// numbers, whose forms vary by country ("+1 (555) 010-9999 ext. 2").
func validPhone(s string) bool {
	if length(s) > MaxPhoneLength {
		return false
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

func hasSpaceOrControl(s string) bool {
	for _, r := range s {
		if r <= ' ' || r == 0x7f || r == '\u00a0' || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}
