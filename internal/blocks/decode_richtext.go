package blocks

import (
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// DecodeRichText reads a rich-text array of a request (v as parsed by encoding/json) at path,
// adding every problem to p. Read-only fields a client may send back (plain_text, href) are
// accepted and recomputed. Items that cannot be read are left out of the result.
func DecodeRichText(p *quire.Problems, path string, v any) RichText {
	a, ok := array(p, path, v)
	if !ok {
		return nil
	}
	rt := make(RichText, 0, len(a))
	for i, e := range a {
		if it, ok := decodeItem(p, jsonbody.Index(path, i), e); ok {
			rt = append(rt, it)
		}
	}
	return rt
}

var itemKinds = []string{"text", "mention", "equation"}

func decodeItem(p *quire.Problems, path string, v any) (Item, bool) {
	m, ok := jsonbody.Object(p, path, v)
	if !ok {
		return Item{}, false
	}
	before := len(p.Details)
	it := Item{}
	typ, hasType := jsonbody.Str(p, path, m, "type")
	if _, present := m["type"]; present && !hasType {
		return Item{}, false
	}
	if !hasType {
		typ = inferKind(m, itemKinds)
		if typ == "" {
			p.Add(jsonbody.Join(path, "type"), quire.ReasonRequired, "Rich text needs a type.")
			return Item{}, false
		}
	}
	allowed := []string{"type", "annotations", "plain_text", "href"}
	switch typ {
	case "text", "mention", "equation":
		allowed = append(allowed, typ)
	default:
		p.Add(jsonbody.Join(path, "type"), quire.ReasonInvalidValue, "Rich text type is text, mention or equation.")
		return Item{}, false
	}
	jsonbody.Unknown(p, path, m, allowed...)
	it.Type = typ
	body, present := m[typ]
	if !present {
		p.Add(jsonbody.Join(path, typ), quire.ReasonRequired, "Field \""+typ+"\" is required.")
		return Item{}, false
	}
	bp := jsonbody.Join(path, typ)
	bm, ok := jsonbody.Object(p, bp, body)
	if !ok {
		return Item{}, false
	}
	switch typ {
	case "text":
		it.Text = decodeText(p, bp, bm)
	case "equation":
		jsonbody.Unknown(p, bp, bm, "expression")
		if s, ok := jsonbody.RequiredStr(p, bp, bm, "expression"); ok {
			it.Equation = &Equation{Expression: s}
			checkLen(p, jsonbody.Join(bp, "expression"), s, MaxExpressionLength)
		}
	case "mention":
		it.Mention = decodeMention(p, bp, bm)
	}
	if a, present := m["annotations"]; present {
		it.Annotations = decodeAnnotations(p, jsonbody.Join(path, "annotations"), a)
	}
	nullableStr(p, path, m, "href")
	jsonbody.Str(p, path, m, "plain_text")
	if len(p.Details) > before || (it.Text == nil && it.Equation == nil && it.Mention == nil) {
		return Item{}, false
	}
	it.Fill()
	return it, true
}

// inferKind returns the one key of m that names a kind, "" when none or several do: clients
// of the original service may leave "type" out.
func inferKind(m map[string]any, kinds []string) string {
	found := ""
	for _, k := range kinds {
		if _, ok := m[k]; ok {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

func decodeText(p *quire.Problems, path string, m map[string]any) *Text {
	jsonbody.Unknown(p, path, m, "content", "link")
	content, ok := jsonbody.RequiredStr(p, path, m, "content")
	if !ok {
		return nil
	}
	checkLen(p, jsonbody.Join(path, "content"), content, MaxTextLength)
	t := &Text{Content: content}
	if lv, present := m["link"]; present && lv != nil {
		lp := jsonbody.Join(path, "link")
		lm, ok := jsonbody.Object(p, lp, lv)
		if !ok {
			return nil
		}
		// {"type":"url","url":…} is what some Notion client libraries send.
		jsonbody.Unknown(p, lp, lm, "url", "type")
		if s, ok := jsonbody.Str(p, lp, lm, "type"); ok && s != "url" {
			p.Add(jsonbody.Join(lp, "type"), quire.ReasonInvalidValue, "A link's type is url.")
		}
		u, ok := jsonbody.RequiredStr(p, lp, lm, "url")
		if !ok {
			return nil
		}
		checkURL(p, jsonbody.Join(lp, "url"), u)
		t.Link = &Link{URL: u}
	}
	return t
}

var mentionKinds = []string{"user", "page", "database", "date"}

func decodeMention(p *quire.Problems, path string, m map[string]any) *Mention {
	typ, hasType := jsonbody.Str(p, path, m, "type")
	if _, present := m["type"]; present && !hasType {
		return nil
	}
	if !hasType {
		if typ = inferKind(m, mentionKinds); typ == "" {
			p.Add(jsonbody.Join(path, "type"), quire.ReasonRequired, "A mention needs a type.")
			return nil
		}
	}
	switch typ {
	case "user", "page", "database", "date":
	default:
		p.Add(jsonbody.Join(path, "type"), quire.ReasonInvalidValue, "A mention's type is user, page, database or date.")
		return nil
	}
	jsonbody.Unknown(p, path, m, "type", typ)
	v, present := m[typ]
	if !present {
		p.Add(jsonbody.Join(path, typ), quire.ReasonRequired, "Field \""+typ+"\" is required.")
		return nil
	}
	op := jsonbody.Join(path, typ)
	om, ok := jsonbody.Object(p, op, v)
	if !ok {
		return nil
	}
	mn := &Mention{Type: typ}
	if typ == "date" {
		jsonbody.Unknown(p, op, om, "start", "end", "time_zone")
		start, ok1 := jsonbody.RequiredStr(p, op, om, "start")
		end, ok2 := nullableStr(p, op, om, "end")
		tz, ok3 := nullableStr(p, op, om, "time_zone")
		if !ok1 || (!ok2 && om["end"] != nil) || (!ok3 && om["time_zone"] != nil) {
			return nil
		}
		mn.Date = &Date{Start: start, End: end, TimeZone: tz}
		checkDate(p, op, mn.Date)
		return mn
	}
	if typ == "user" {
		jsonbody.Unknown(p, op, om, "id", "object")
		if s, ok := jsonbody.Str(p, op, om, "object"); ok && s != "user" {
			p.Add(jsonbody.Join(op, "object"), quire.ReasonInvalidValue, "A user mention's object is user.")
		}
	} else {
		jsonbody.Unknown(p, op, om, "id")
	}
	id, ok := jsonbody.RequiredStr(p, op, om, "id")
	if !ok {
		return nil
	}
	checkID(p, jsonbody.Join(op, "id"), id)
	mn.ID = id
	return mn
}

func decodeAnnotations(p *quire.Problems, path string, v any) Annotations {
	var a Annotations
	m, ok := jsonbody.Object(p, path, v)
	if !ok {
		return a
	}
	jsonbody.Unknown(p, path, m, "bold", "italic", "strikethrough", "underline", "code", "text_color", "background_color", "color")
	a.Bold, _ = boolean(p, path, m, "bold")
	a.Italic, _ = boolean(p, path, m, "italic")
	a.Strikethrough, _ = boolean(p, path, m, "strikethrough")
	a.Underline, _ = boolean(p, path, m, "underline")
	a.Code, _ = boolean(p, path, m, "code")
	decodeColors(p, path, m, &a.TextColor, &a.BackgroundColor)
	return a
}

// decodeColors applies the legacy color, then the explicit channels; each channel keeps its
// current value when the body does not set it, which is what makes "default" clear only its
// own channel on an update. A legacy color and an explicit field that disagree on the same
// channel are an invalid_value on color.
func decodeColors(p *quire.Problems, path string, m map[string]any, text, bg *string) {
	tc, hasTC := jsonbody.Str(p, path, m, "text_color")
	if hasTC && !textColors[tc] {
		p.Add(jsonbody.Join(path, "text_color"), quire.ReasonInvalidValue, "Unknown text colour.")
		hasTC = false
	}
	bc, hasBC := jsonbody.Str(p, path, m, "background_color")
	if hasBC && !bgColors[bc] {
		p.Add(jsonbody.Join(path, "background_color"), quire.ReasonInvalidValue, "Unknown background colour.")
		hasBC = false
	}
	if c, ok := jsonbody.Str(p, path, m, "color"); ok {
		background, value, valid := LegacyColor(c)
		switch {
		case !valid:
			p.Add(jsonbody.Join(path, "color"), quire.ReasonInvalidValue, "Unknown colour.")
		case background && hasBC && bc != value, !background && hasTC && tc != value:
			p.Add(jsonbody.Join(path, "color"), quire.ReasonInvalidValue, "color contradicts an explicit colour channel.")
		case background:
			*bg = value
		default:
			*text = value
		}
	}
	if hasTC {
		*text = tc
	}
	if hasBC {
		*bg = bc
	}
}
