package search_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/search"
)

// jsonNode is a JSON value as a tree, an object's members in the order written.
type jsonNode struct {
	kind    byte // 'o' object, 'a' array, 's' string, 'x' anything else
	str     string
	raw     json.RawMessage // a number or literal, as written
	keys    []string
	members []*jsonNode // an object's values (with keys) or an array's elements
}

// parseTree reads content into a tree with encoding/json, or false.
func parseTree(content []byte) (*jsonNode, bool) {
	d := json.NewDecoder(bytes.NewReader(content))
	d.UseNumber()
	n, ok := readNode(d)
	if !ok || d.More() {
		return nil, false
	}
	if _, err := d.Token(); err == nil {
		return nil, false // something after the value
	}
	return n, true
}

func readNode(d *json.Decoder) (*jsonNode, bool) {
	tok, err := d.Token()
	if err != nil {
		return nil, false
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &jsonNode{kind: 'a'}
		if t == '{' {
			n.kind = 'o'
		}
		for d.More() {
			if n.kind == 'o' {
				k, err := d.Token()
				if err != nil {
					return nil, false
				}
				n.keys = append(n.keys, k.(string))
			}
			m, ok := readNode(d)
			if !ok {
				return nil, false
			}
			n.members = append(n.members, m)
		}
		_, err := d.Token() // the closing delimiter
		return n, err == nil
	case string:
		return &jsonNode{kind: 's', str: t}, true
	case json.Number:
		return &jsonNode{kind: 'x', raw: json.RawMessage(t)}, true
	default:
		b, _ := json.Marshal(t)
		return &jsonNode{kind: 'x', raw: b}, true
	}
}

// jsonbOrder puts n's members, at every depth, in jsonb's order of keys (shorter first, then
// by bytes), keeping the last of a repeated key as jsonb does.
func jsonbOrder(n *jsonNode) {
	for _, m := range n.members {
		jsonbOrder(m)
	}
	if n.kind != 'o' {
		return
	}
	last := map[string]int{}
	for i, k := range n.keys {
		last[k] = i
	}
	idx := make([]int, 0, len(last))
	for _, i := range last {
		idx = append(idx, i)
	}
	slices.SortFunc(idx, func(a, b int) int {
		ka, kb := n.keys[a], n.keys[b]
		return cmp.Or(cmp.Compare(len(ka), len(kb)), strings.Compare(ka, kb))
	})
	keys, members := make([]string, len(idx)), make([]*jsonNode, len(idx))
	for j, i := range idx {
		keys[j], members[j] = n.keys[i], n.members[i]
	}
	n.keys, n.members = keys, members
}

// writeTree writes n as JSON; ownFirst puts in front of each object one plain_text member
// with the text quire_content_text takes from the object itself (its plain_text, or else its
// expression, when a string) and leaves out the object's own plain_text and expression:
// the document whose reading in document order (SQLite's) is PostgreSQL's reading of n.
func writeTree(b *bytes.Buffer, n *jsonNode, ownFirst bool) {
	str := func(s string) {
		enc, _ := json.Marshal(s)
		b.Write(enc)
	}
	switch n.kind {
	case 's':
		str(n.str)
	case 'x':
		b.Write(n.raw)
	case 'a':
		b.WriteByte('[')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeTree(b, m, ownFirst)
		}
		b.WriteByte(']')
	case 'o':
		b.WriteByte('{')
		first := true
		sep := func() {
			if !first {
				b.WriteByte(',')
			}
			first = false
		}
		if ownFirst {
			if own, ok := ownText(n); ok {
				sep()
				b.WriteString(`"plain_text":`)
				str(own)
			}
		}
		for i, k := range n.keys {
			if ownFirst && (k == "plain_text" || k == "expression") && n.members[i].kind == 's' {
				continue
			}
			sep()
			// As written: a key BlockTextPostgres reads has no escape, and encoding/json would
			// escape some (&, <, >, U+2028) that jsonb prints as they are.
			b.WriteString(`"` + k + `":`)
			writeTree(b, n.members[i], ownFirst)
		}
		b.WriteByte('}')
	}
}

// ownText is the text quire_content_text takes from object n itself.
func ownText(n *jsonNode) (string, bool) {
	var plain, expr *jsonNode
	for i, k := range n.keys {
		switch k {
		case "plain_text":
			plain = n.members[i]
		case "expression":
			expr = n.members[i]
		}
	}
	switch {
	case plain != nil && plain.kind == 's':
		return plain.str, true
	case expr != nil && expr.kind == 's':
		return expr.str, true
	}
	return "", false
}

// FuzzBlockTextPostgres checks search.BlockTextPostgres, whose text the store writes as a
// block's search entry on PostgreSQL in place of the trigger's: it never panics, and whatever
// it reads, it reads as PostgreSQL's quire_content_text would, taking SQLite's reader as the
// oracle: the content is parsed by encoding/json, put in jsonb's order of keys, and each
// object's own text (its plain_text, or else its expression) moved in front of its members;
// SQLite's reading of that document in document order (search.BlockText, itself fuzzed against
// json_tree) must be the same text. Also: what it reads the SQLite reader reads too (it refuses
// no less), and it reads jsonb's canonical form of the content (keys ordered, each string
// re-escaped) to the same text, as PostgreSQL reads the content again from its jsonb.
// store's TestBlockTextPostgres_MatchesTrigger checks the same against PostgreSQL itself.
func FuzzBlockTextPostgres(f *testing.F) {
	rt := blocks.RichText{
		blocks.NewText("Plain \"quoted\" 東京 \u2028 tab\t", blocks.Annotations{Bold: true}, "https://example.com"),
		blocks.NewText("second", blocks.Annotations{}, ""),
	}
	for _, b := range []*blocks.Block{
		{Type: "paragraph", Content: blocks.Content{RichText: rt}},
		{Type: "code", Content: blocks.Content{RichText: rt, Caption: rt[1:], Language: "go"}},
		{Type: "equation", Content: blocks.Content{Expression: `\frac{a}{b} "x"`}},
		{Type: "table_row", Content: blocks.Content{Cells: []blocks.RichText{rt, rt[1:], nil}}},
		{Type: "divider"},
	} {
		f.Add(blocks.MarshalContent(b))
	}
	for _, seed := range []string{
		`{"rich_text":[{"type":"equation","equation":{"expression":"x^2"},"plain_text":"x^2"}]}`,
		`{"plain_text":"p","expression":"e","zz":{"plain_text":"inner"}}`,
		`{"expression":"e","a":[{"expression":"f"}],"plain_text":null}`,
		`{"bb":{"plain_text":"2"},"a":{"plain_text":"1"},"ccc":[{"plain_text":"3"}]}`,
		`{"b":{"plain_text":"1"},"aa":{"plain_text":"2"}}`,
		`{"plain_text":"a","plain_text":"b"}`,
		`{"plain\u005ftext":"escaped key"}`,
		`{"plain_text":1,"expression":"e"}`,
		`{"n":[1,-0.5,2e10,-3E-2,1e1000,true,false,null],"plain_text":"\u00e9\ud83d\ude00\"\\\/"}`,
		` { "plain_text" : "spaces" } `,
		`[{"plain_text":""},{"plain_text":""}]`, `{}`, `"plain_text"`, `{"plain_text":"\u0000"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		got, ok := search.BlockTextPostgres(content)
		if !ok {
			return // left to the trigger
		}
		if _, sqliteOK := search.BlockText(content); !sqliteOK {
			t.Fatalf("%q: read as %q, but the SQLite reader refuses it", content, got)
		}
		tree, parsed := parseTree(content)
		if !parsed {
			t.Fatalf("%q: read as %q, but encoding/json refuses it", content, got)
		}
		jsonbOrder(tree)
		var own, canonical bytes.Buffer
		writeTree(&own, tree, true)
		writeTree(&canonical, tree, false)
		want, wantOK := search.BlockText(own.Bytes())
		if !wantOK || got != want {
			t.Fatalf("%q: read as %q; its jsonb reading in document order %s reads %q (%v)", content, got, own.Bytes(), want, wantOK)
		}
		if again, ok := search.BlockTextPostgres(canonical.Bytes()); !ok || again != got {
			t.Fatalf("%q: read as %q; its jsonb form %s as %q (%v)", content, got, canonical.Bytes(), again, ok)
		}
	})
}
