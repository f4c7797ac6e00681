package httpapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// Markers put in a decoded body and replaced in its encoding by what encoding/json cannot
// write: a lone surrogate escape, bytes that are no UTF-8, and nesting deeper than its limit.
const (
	markSurrogate = "@@surrogate@@"
	markBadUTF8   = "@@badutf8@@"
	markDeep      = "@@deep@@"
)

// jsonSlot is one place in a decoded body: a value that can be replaced or removed.
type jsonSlot struct {
	get func() any
	set func(any)
	del func()
}

// slots lists every place of the tree under root, root itself first, keys in the order they
// appear in src (then by name): the same body means the same list in every run, even when its
// keys are ids that differ from run to run.
func slots(root *any, src []byte) []jsonSlot {
	at := func(k string) int {
		q, _ := json.Marshal(k)
		if i := bytes.Index(src, q); i >= 0 {
			return i
		}
		return len(src)
	}
	byPlace := func(a, b string) int { return cmp.Or(cmp.Compare(at(a), at(b)), cmp.Compare(a, b)) }
	out := []jsonSlot{{get: func() any { return *root }, set: func(v any) { *root = v }, del: func() { *root = nil }}}
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.SortedFunc(maps.Keys(x), byPlace) {
				child := x[k]
				out = append(out, jsonSlot{get: func() any { return x[k] }, set: func(v any) { x[k] = v }, del: func() { delete(x, k) }})
				walk(child, func(v any) { x[k] = v })
			}
		case []any:
			for i, child := range x {
				out = append(out, jsonSlot{get: func() any { return x[i] }, set: func(v any) { x[i] = v },
					del: func() { set(append(x[:i:i], x[i+1:]...)) }})
				walk(child, func(v any) { x[i] = v })
			}
		}
	}
	walk(*root, func(v any) { *root = v })
	return out
}

// mutateJSON decodes the body (an empty object when it is none) and changes one place in it.
func (w *fuzzWorld) mutateJSON(c chooser, q *fuzzReq) {
	var root any
	d := json.NewDecoder(bytes.NewReader(q.body))
	d.UseNumber()
	if d.Decode(&root) != nil {
		root = map[string]any{}
	}
	all := slots(&root, q.body)
	s := all[c.intn(len(all))]
	v := s.get()
	switch c.intn(12) {
	case 0:
		s.del()
	case 1:
		s.set(pick[any](c, nil, true, false, json.Number("0"), json.Number("-1"), json.Number("1.5"), "", "x",
			[]any{}, map[string]any{}, []any{v}, map[string]any{"x": v}))
	case 2:
		unit := pick(c, "x", "é", "😀")
		s.set(strings.Repeat(unit, pick(c, 2001, 10000, maxBody/len(unit)+1)))
	case 3:
		n := min(pick(c, 2, 101, 1000), max(2, maxGenerated/encodedSize(v)))
		arr := make([]any, n)
		for i := range arr {
			arr[i] = v
		}
		s.set(arr)
	case 4:
		s.set(markDeep + strconv.Itoa(pick(c, 5, 64, 1000, 10001)))
	case 5:
		s.set(pick(c, "é", "😀", "\u202eevil", "a\x00b", markSurrogate, markBadUTF8, "\u0301", "\ufeff", "\u2028", "\U0001D54F",
			strings.Repeat("😀", 2001), "null", "  ", "<script>"))
	case 6:
		if m, ok := v.(map[string]any); ok {
			m[pick(c, "zz_unknown", "", "in_trash", "parent", "children", "properties", "type", "archived")] = pick[any](c, 1, nil, "x", true)
		}
	case 7:
		s.set(pick(c, quire.NewID(), w.e.owner.ID, "", "not-an-id", w.allIDs[c.intn(len(w.allIDs))]))
	case 8:
		s.set(json.Number(pick(c, "1e400", "-1e400", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
			"1e-400", "0.0000001", "-0", "100", "101", "2147483648", "4294967296", "1.0", "1E2", "-1e308")))
	case 9:
		if m, ok := root.(map[string]any); ok {
			if c.intn(2) == 0 {
				m["start_cursor"] = w.cursorValue(c)
			} else {
				m["page_size"] = json.Number(w.queryValue(c, "page_size"))
			}
		}
	case 10:
		if a, ok := v.([]any); ok && len(a) > 0 && 2*encodedSize(a) <= maxGenerated {
			s.set(append(a, a...))
		}
	case 11:
		if str, ok := v.(string); ok && str != "" {
			s.set(pick(c, str[:c.intn(len(str))], str+str, strings.ToUpper(str), " "+str, str+"\n"))
		}
	}
	body, err := json.Marshal(root)
	if err != nil {
		return // a number that is not one: keep the body as it was
	}
	if body = expandMarks(body); len(body) <= maxGenerated {
		q.body = body
	}
}

// maxGenerated bounds a generated body: twice the largest body taken is enough to be refused,
// and copies of copies would otherwise grow to gigabytes.
const maxGenerated = 2 * maxBody

// encodedSize is the length of v as sent.
func encodedSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 1
	}
	return max(1, len(expandMarks(b)))
}

func expandMarks(body []byte) []byte {
	body = bytes.ReplaceAll(body, []byte(markSurrogate), []byte(`\ud800`))
	body = bytes.ReplaceAll(body, []byte(markBadUTF8), []byte("\xff\xfe"))
	for {
		i := bytes.Index(body, []byte(`"`+markDeep))
		if i < 0 {
			return body
		}
		j := bytes.IndexByte(body[i+1:], '"') + i + 1
		n, _ := strconv.Atoi(string(body[i+1+len(markDeep) : j]))
		deep := strings.Repeat(`{"a":[`, n/2) + "1" + strings.Repeat(`]}`, n/2)
		body = append(body[:i], append([]byte(deep), body[j+1:]...)...)
	}
}

// mutateBytes changes the body's bytes without regard to JSON.
func mutateBytes(c chooser, q *fuzzReq) {
	b := q.body
	switch c.intn(5) {
	case 0:
		if len(b) > 0 {
			b[c.intn(len(b))] ^= byte(1 + c.intn(255))
		}
	case 1:
		b = b[:c.intn(len(b)+1)]
	case 2:
		i := c.intn(len(b) + 1)
		ins := pick(c, "{", "}", "[", "]", `"`, `\`, ",", ":", "\x00", "\xff", " ", "\\u0000", "null")
		b = append(b[:i:i], append([]byte(ins), b[i:]...)...)
	case 3:
		b = []byte(pick(c, "", "null", "[]", "{}", `"x"`, "1", "{", `{"a":`, "\xef\xbb\xbf{}", "{}{}", "{} x",
			`{"parent":1,"parent":2}`, strings.Repeat(" ", 100)+"{}", strings.Repeat("[", 20000),
			`{"x":"`+strings.Repeat("x", maxBody)+`"}`, `{"x":"`+strings.Repeat("x", maxBody-8)+`"}`))
	case 4:
		if i := bytes.IndexByte(b, '{'); i >= 0 {
			dup := pick(c, `"in_trash":true,`, `"parent":{"workspace":true},`, `"children":[],`, `"properties":{},`)
			b = append(b[:i+1:i+1], append([]byte(dup), b[i+1:]...)...)
		}
	}
	q.body = b
}
