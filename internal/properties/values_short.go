package properties

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonread"
)

// A title or rich-text value is stored in its short form, under "r" instead of "rt": each item
// that is plain text (blocks.Item.IsPlain: no annotation, no link, its plain_text its content)
// is stored as its content alone, a JSON string; any other item as before, an object in its
// read shape (blocks.AppendShortRichText, with <, > and & escaped as encoding/json escapes them). A plain
// item written out in full is 180 bytes of defaults around its text, and a seeded record held
// two of them (issue 15: the nodes row's bytes are most of what a batch of records writes).
// Values stored under "rt" (every record written before) read as they always did.

// plainItem is the item a string of the short form reads as (blocks.PlainItem).
func plainItem(content string) blocks.Item { return blocks.PlainItem(content) }

// appendShortRichText appends rt's short form, its strings escaped as encoding/json escapes
// them (<, > and & too), as the long form is.
func appendShortRichText(dst []byte, rt blocks.RichText) []byte {
	dst = append(dst, '[')
	for i := range rt {
		if i > 0 {
			dst = append(dst, ',')
		}
		if rt[i].IsPlain() {
			dst = blocks.AppendStringAsJSON(dst, rt[i].Text.Content)
			continue
		}
		start := len(dst)
		dst = blocks.AppendItem(dst, &rt[i])
		dst = escapeHTML(dst, start)
	}
	return append(dst, ']')
}

// readShortRichText reads a short form (or null) at r; an object item is read as
// unmarshalShortItem reads it, so that this equals unmarshalShortRichText.
func readShortRichText(r *jsonread.Reader) blocks.RichText {
	if r.Null() {
		return nil
	}
	rt := blocks.RichText{}
	r.Open('[')
	for n := 0; r.More(']', n); n++ {
		raw := r.Raw()
		if r.Bad() {
			return nil
		}
		if raw[0] == '"' {
			s := jsonread.New(raw)
			if text := s.Text(); s.End() {
				rt = append(rt, plainItem(text))
				continue
			}
			r.Fail()
			return nil
		}
		it, err := unmarshalShortItem(raw)
		if err != nil {
			r.Fail()
			return nil
		}
		rt = append(rt, it)
	}
	return rt
}

// unmarshalShortRichText reads a short form through encoding/json: the reference for
// readShortRichText, and what reads the shapes it leaves.
func unmarshalShortRichText(raw []byte) (blocks.RichText, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("properties: stored rich text: %w", err)
	}
	if items == nil {
		return nil, nil
	}
	rt := make(blocks.RichText, 0, len(items))
	for _, raw := range items {
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("properties: stored rich text: %w", err)
			}
			rt = append(rt, plainItem(s))
			continue
		}
		it, err := unmarshalShortItem(raw)
		if err != nil {
			return nil, err
		}
		rt = append(rt, it)
	}
	return rt, nil
}

// unmarshalShortItem reads one item of the short form that is not a string, as the long form
// reads a list of that one item.
func unmarshalShortItem(raw []byte) (blocks.Item, error) {
	list := make([]byte, 0, len(raw)+2)
	list = append(append(append(list, '['), raw...), ']')
	rt, err := blocks.UnmarshalRichText(list)
	if err != nil {
		return blocks.Item{}, err
	}
	if len(rt) != 1 {
		return blocks.Item{}, fmt.Errorf("properties: stored rich text: an item %s", raw)
	}
	return rt[0], nil
}

// LongForm returns stored values with every short rich text written out in full, as records
// were stored before the short form: what a native export carries, so that an export reads the
// same to any version and answers the same bytes as before. Values without a short form (every
// record written before) are returned as they are.
func LongForm(raw []byte) ([]byte, error) {
	// Inside a string a quote is escaped, and a property id's value is an object: `"r":[` is
	// a short form's key.
	if !bytes.Contains(raw, []byte(`"r":[`)) {
		return raw, nil
	}
	v, err := UnmarshalValues(raw)
	if err != nil {
		return nil, err
	}
	return marshalValues(v, false), nil
}
