package httpapi

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// chooser makes the generator's choices: from the fuzzer's input bytes (so that mutating the
// input mutates the request), or from a seeded random source (the property test).
type chooser interface{ intn(n int) int }

type byteChooser struct{ data []byte }

// intn reads one byte (two when n is over 256); an exhausted input chooses 0 from then on.
func (c *byteChooser) intn(n int) int {
	if n <= 1 || len(c.data) == 0 {
		return 0
	}
	v := int(c.data[0])
	if n > 256 && len(c.data) >= 2 {
		v = int(binary.BigEndian.Uint16(c.data))
		c.data = c.data[1:]
	}
	c.data = c.data[1:]
	return v % n
}

type randChooser struct{ r *rand.Rand }

func (c randChooser) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return c.r.IntN(n)
}

func pick[T any](c chooser, xs ...T) T { return xs[c.intn(len(xs))] }

// fuzzReq is one generated request. Path segments are kept unescaped and escaped when sent.
type fuzzReq struct {
	method string
	segs   []string
	query  string
	body   []byte
	header http.Header
	route  int // the template's route: names the path parameters
}

func (q *fuzzReq) target() string {
	segs := make([]string, len(q.segs))
	for i, s := range q.segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/") + queryPart(q.query)
}

// String shows the request in a failure message, long values cut.
func (q *fuzzReq) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", q.method, clip(q.target(), 300))
	for _, k := range slices.Sorted(maps.Keys(q.header)) {
		for _, v := range q.header[k] {
			fmt.Fprintf(&b, "\n%s: %q", k, clip(v, 120))
		}
	}
	fmt.Fprintf(&b, "\n\n%q", clip(string(q.body), 2000))
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("…(%d bytes)", len(s))
}

// generate makes one request: a template with up to four mutations (none in one case of five).
func (w *fuzzWorld) generate(c chooser) *fuzzReq {
	tp := w.templates[c.intn(len(w.templates))]
	q := &fuzzReq{method: tp.method, segs: slices.Clone(tp.segs), query: tp.query, body: slices.Clone(tp.body), header: http.Header{}, route: tp.route}
	if tp.token != "" {
		q.header.Set("Authorization", "Bearer "+tp.token)
	}
	if len(tp.body) > 0 {
		q.header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(tp.headers); i += 2 {
		q.header.Set(tp.headers[i], tp.headers[i+1])
	}
	for n := c.intn(5); n > 0; n-- {
		switch c.intn(10) {
		case 0, 1:
			w.mutatePath(c, q)
		case 2:
			w.mutateQuery(c, q)
		case 3, 4:
			w.mutateHeader(c, q)
		case 5, 6, 7:
			w.mutateJSON(c, q)
		case 8:
			mutateBytes(c, q)
		case 9:
			w.otherRoute(c, q)
		}
	}
	return q
}

// paramValue is a value for path parameter name of route r: mostly a real id of that kind,
// else an id of another kind or workspace, an unknown id, or a malformed one.
func (w *fuzzWorld) paramValue(c chooser, r fuzzRoute, name string) string {
	real := w.ids[name]
	if enum := r.enums[name]; len(enum) > 0 {
		real = enum
	}
	if v := pathValues[name]; v != "" && len(real) == 0 {
		real = []string{v}
	}
	some := quire.NewID()
	if len(real) > 0 {
		some = real[c.intn(len(real))]
	}
	switch c.intn(8) {
	case 0, 1, 2, 3:
		return some
	case 4:
		return w.allIDs[c.intn(len(w.allIDs))]
	case 5:
		return quire.NewID()
	}
	return pick(c, "", "x", "0", "-1", "null", "..", ".", " ", "\x00", "\xff\xfe", "ü", "😀",
		strings.ToUpper(some), strings.ReplaceAll(some, "-", ""), some+"x", some[:len(some)-1],
		"{"+some+"}", strings.Repeat("a", 300), strings.Repeat(some, 30), some+"/x", "%2F", "'; DROP TABLE nodes; --")
}

func (w *fuzzWorld) mutatePath(c chooser, q *fuzzReq) {
	r := w.routes[q.route]
	var params []int
	for j, s := range r.segs {
		if isParam(s) && j < len(q.segs) {
			params = append(params, j)
		}
	}
	switch c.intn(5) {
	case 0, 1, 2:
		if len(params) > 0 {
			j := params[c.intn(len(params))]
			q.segs[j] = w.paramValue(c, r, r.segs[j][1:len(r.segs[j])-1])
		}
	case 3:
		q.segs = append(q.segs, pick(c, "", "x", "children", "move", quire.NewID()))
	case 4:
		q.method = pick(c, "GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS", "TRACE")
	}
}

// otherRoute sends the request's headers and body to another route, its path filled.
func (w *fuzzWorld) otherRoute(c chooser, q *fuzzReq) {
	ri := c.intn(len(w.routes))
	r := w.routes[ri]
	q.route, q.method, q.query = ri, r.method, ""
	q.segs = slices.Clone(r.segs)
	for j, s := range r.segs {
		if isParam(s) {
			q.segs[j] = w.paramValue(c, r, s[1:len(s)-1])
		}
	}
}

func (w *fuzzWorld) mutateQuery(c chooser, q *fuzzReq) {
	if c.intn(8) == 0 {
		q.query = pick(c, "%", "%zz", "a=%FF", "&&&", "=", "page_size=1;page_size=2", "page_size", "page_size=%00", "start_cursor=%FF%FE")
		return
	}
	r := w.routes[q.route]
	vals, err := url.ParseQuery(q.query)
	if err != nil {
		vals = url.Values{}
	}
	var name string
	if len(r.query) > 0 && c.intn(4) != 0 {
		name = r.query[c.intn(len(r.query))].Name
	} else {
		name = pick(c, "page_size", "start_cursor", "filter", "filter[property]", "sort", "query", "file_id", "x", "", "page_size[]")
	}
	v := w.queryValue(c, name)
	switch c.intn(4) {
	case 0:
		vals.Add(name, v)
	case 1:
		vals.Del(name)
	default:
		vals.Set(name, v)
	}
	q.query = vals.Encode()
}

func (w *fuzzWorld) queryValue(c chooser, name string) string {
	switch name {
	case "page_size":
		return pick(c, "1", "20", "100", "0", "101", "-1", "abc", "", "1.5", "99999999999999999999", " 1", "0x10", "1e2", "+5")
	case "start_cursor":
		return w.cursorValue(c)
	case "file_id":
		if ids := w.ids["file_id"]; len(ids) > 0 && c.intn(2) == 0 {
			return ids[c.intn(len(ids))]
		}
		return w.allIDs[c.intn(len(w.allIDs))]
	}
	return pick(c, "", "x", "true", "1", "\x00", "\xff", "😀", strings.Repeat("q", 3000), `{"property":"x"}`)
}

// cursorValue is a real cursor of some listing, often altered.
func (w *fuzzWorld) cursorValue(c chooser) string {
	cur := w.cursors[c.intn(len(w.cursors))]
	switch c.intn(9) {
	case 0, 1, 2:
		return cur
	case 3:
		b := []byte(cur)
		i := c.intn(len(b))
		b[i] = pick(c, byte('A'), 'z', '0', '_', '-', '=', '+', '/', '.', 0xff)
		return string(b)
	case 4:
		return cur[:c.intn(len(cur))]
	case 5:
		return cur + pick(c, "x", "=", "==", "A", cur)
	case 6:
		return pick(c, "", "abc", "eyJ9", "e30", "bnVsbA", "W10", "eyJpIjoxfQ", "eyJlIjoiOTk5OTk5OTk5OTk5OTk5OTk5OTk5In0")
	case 7:
		return strings.Repeat(cur, 1+c.intn(40))
	}
	return pick(c, "\x00", "\xff\xfe", "😀", strings.Repeat("A", 2001))
}

func (w *fuzzWorld) mutateHeader(c chooser, q *fuzzReq) {
	huge := strings.Repeat("h", 40<<10)
	set := func(name, v string) {
		if v == "" {
			q.header.Del(name)
		} else {
			q.header.Set(name, v)
		}
	}
	full := w.e.full
	switch c.intn(6) {
	case 0:
		set("Authorization", pick(c, "", "Bearer "+w.tokens[c.intn(len(w.tokens))], "Bearer "+full, "Bearer", "Bearer ",
			"Basic dXNlcjpwYXNz", "bearer "+full, "Bearer  "+full, "Bearer "+full+"x", "Bearer "+full[:len(full)-1],
			"Bearer \xff\xfe", "Bearer "+huge, "Token "+full, "Bearer "+full+", Bearer "+full))
	case 1:
		set("Content-Type", pick(c, "", "application/json", "application/json; charset=utf-8", "text/plain",
			"application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/merge-patch+json", ";;",
			"application/json; charset=latin1", "application/xml", "APPLICATION/JSON", "application/json\t", huge))
	case 2:
		set("If-Match", pick(c, "", "@current", "@current", `W/"1"`, `W/"2"`, `W/"99999999999999999999999"`, `"1"`, "*", "abc",
			`W/"-1"`, `W/""`, `W/"1", W/"2"`, `W/"1`, huge))
	case 3:
		set("Idempotency-Key", pick(c, "", "k1", "k1", "k2", quire.NewID(), strings.Repeat("k", 255), strings.Repeat("k", 256),
			"ключ", "\xff\xfe", " ", "a\tb", huge))
	case 4:
		set(pick(c, "X-Padding", "Accept", "Accept-Encoding", "X-Request-Id", "Origin"), pick(c, huge, "text/html", "gzip", "x", "\xff"))
	case 5:
		q.header.Add("Authorization", "Bearer "+w.tokens[c.intn(len(w.tokens))])
	}
}
