package jsonread_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/quire-dev/quire/internal/jsonread"
)

func TestReader(t *testing.T) {
	r := jsonread.New([]byte(`{"a":[1,-2.5e3,true,false,null],"bé":"x","c":"\u00e9\n","d":{"e":"default"}}`))
	var got []any
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch k := string(r.Key()); k {
		case "a":
			r.Open('[')
			for i := 0; r.More(']', i); i++ {
				switch i {
				case 0, 1:
					got = append(got, r.Float())
				case 2, 3:
					got = append(got, r.Bool())
				default:
					got = append(got, r.Null())
				}
			}
		default:
			got = append(got, k, string(r.Raw()))
		}
	}
	want := []any{1.0, -2500.0, true, false, true, "bé", `"x"`, "c", `"\u00e9\n"`, "d", `{"e":"default"}`}
	if !r.End() {
		t.Fatal("the reader went bad")
	}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("read %v, want %v", got, want)
		}
	}
	for _, bad := range []string{`{"a":1,}`, `{"a" :1}`, `[1 ]`, `"a`, `01`, `1.`, `-`, `tru`, "\"\x01\"", "\"\xff\""} {
		r := jsonread.New([]byte(bad))
		if r.Raw(); r.End() {
			t.Errorf("Raw took %q", bad)
		}
	}
	s := jsonread.New([]byte(`"a\"b\u00e9"`))
	if got := s.Text(); got != "a\"bé" || !s.End() {
		t.Errorf("String = %q", got)
	}
}

// FuzzRaw: what Raw reads to the end is valid JSON with no whitespace to compact away.
func FuzzRaw(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,"x\ny"],"b":{"c":null}}`, `[]`, `"\ud800"`, `1e400`, `{"a":1 }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := jsonread.New(b)
		if r.Raw(); !r.End() {
			return
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil || !bytes.Equal(c.Bytes(), b) {
			t.Fatalf("Raw took %q (compact: %q, %v)", b, c.Bytes(), err)
		}
	})
}
