package properties

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
)

// benchRecords are n records of the database benchmarks' ten properties (title, a text of 12
// words, number, select of 20 options, multi_select of 10 tags, checkbox, date, status, url,
// email), in their stored form, with their schema.
func benchRecords(n int) (quire.Schema, [][]byte) {
	opts := func(prefix string, k int) []quire.Option {
		out := make([]quire.Option, k)
		for i := range out {
			out[i] = quire.Option{ID: fmt.Sprintf("%08d-0000-4000-8000-%012d", i, len(prefix)), Name: fmt.Sprintf("%s%d", prefix, i), Color: "blue"}
		}
		return out
	}
	id := func(i int) string { return fmt.Sprintf("%08d-1111-4000-8000-000000000000", i) }
	s := quire.Schema{
		{ID: "title", Name: "Name", Type: quire.PropTitle},
		{ID: id(1), Name: "Text", Type: quire.PropRichText},
		{ID: id(2), Name: "Num", Type: quire.PropNumber},
		{ID: id(3), Name: "Sel", Type: quire.PropSelect, Options: opts("opt", 20)},
		{ID: id(4), Name: "Tags", Type: quire.PropMultiSelect, Options: opts("tag", 10)},
		{ID: id(5), Name: "Done", Type: quire.PropCheckbox},
		{ID: id(6), Name: "Date", Type: quire.PropDate},
		{ID: id(7), Name: "Stage", Type: quire.PropStatus, Options: opts("stage", 3)},
		{ID: id(8), Name: "Site", Type: quire.PropURL},
		{ID: id(9), Name: "Mail", Type: quire.PropEmail},
	}
	raws := make([][]byte, n)
	for i := range raws {
		words := make([]string, 12)
		for j := range words {
			words[j] = fmt.Sprintf("w%03dx", (i*7+j*31)%1000)
		}
		v := Values{
			"title": {Type: "title", RichText: blocks.Plain(fmt.Sprintf("Record %d", i))},
			s[1].ID: {Type: "rich_text", RichText: blocks.Plain(strings.Join(words, " "))},
			s[2].ID: {Type: "number", Number: float64((i * 2654435761) % 1000000)},
			s[3].ID: {Type: "select", ID: s[3].Options[i%20].ID},
			s[4].ID: {Type: "multi_select", IDs: []string{s[4].Options[i%10].ID, s[4].Options[(i/10)%10].ID}},
			s[6].ID: {Type: "date", Date: &Date{Start: fmt.Sprintf("2024-01-%02d", 1+i%28)}},
			s[8].ID: {Type: "url", Text: fmt.Sprintf("https://example.com/%d", i)},
			s[9].ID: {Type: "email", Text: fmt.Sprintf("r%d@example.com", i)},
		}
		if i%2 == 1 {
			v[s[5].ID] = Value{Type: "checkbox", Checkbox: true}
		}
		if i%3 > 0 {
			v[s[7].ID] = Value{Type: "status", ID: s[7].Options[i%3].ID}
		}
		raws[i] = MarshalValues(v)
	}
	return s, raws
}

// BenchmarkRender100 renders a page of 100 records from their stored form, as a database query
// does: decoded into Values and written (values), and from the stored bytes (stored).
// go test -run '^$' -bench Render100 ./internal/properties
func BenchmarkRender100(b *testing.B) {
	s, raws := benchRecords(100)
	c := Computed{CreatedMs: 1700000000000, EditedMs: 1700000000000, CreatedBy: "u", EditedBy: "u"}
	b.Run("values", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, cpuNanos())
		for b.Loop() {
			for _, raw := range raws {
				vals, err := UnmarshalValues(raw)
				if err != nil {
					b.Fatal(err)
				}
				_ = AppendValues(make([]byte, 0, 2*len(raw)+256), s, vals, c)
			}
		}
	})
	b.Run("stored", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, cpuNanos())
		for b.Loop() {
			r := NewRenderer(s) // once per page, as a query does
			for _, raw := range raws {
				// Room as the service gives it (service.renderRecord): a short rich text reads
				// as some 200 bytes more an item than it is stored.
				room := 4*len(raw) + 512 + 1024*bytes.Count(raw, []byte(`"r":[`))
				if _, err := r.Append(make([]byte, 0, room), raw, c); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// reportCPU reports cpu-ms, the process's CPU time per operation since start (0 where it is
// not measured).
func reportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(cpuNanos()-start)/1e6/float64(b.N), "cpu-ms")
}
