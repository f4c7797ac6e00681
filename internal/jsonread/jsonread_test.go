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

// TestNewBody: a request body's Reader takes whitespace between tokens, and goes bad on a
// string jsonbody.Parse would not read as written and on a key met twice (Once); New keeps
// refusing whitespace.
func TestNewBody(t *testing.T) {
	r := jsonread.NewBody([]byte(" {\n\t\"a\" : [ 1 , true , null , \"x\\u00e9\" ] ,\r\"b\":{ } } \n"))
	var got []any
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		switch string(r.Key()) {
		case "a":
			r.Open('[')
			for i := 0; r.More(']', i); i++ {
				switch i {
				case 0:
					got = append(got, r.Float())
				case 1:
					got = append(got, r.Bool())
				case 2:
					got = append(got, r.Null())
				default:
					got = append(got, r.Text())
				}
			}
		default:
			got = append(got, string(r.Raw()))
		}
	}
	if want := []any{1.0, true, true, "xé", "{ }"}; !r.End() || len(got) != len(want) || got[0] != want[0] || got[3] != want[3] || got[4] != want[4] {
		t.Fatalf("read %v (end %v)", got, r.End())
	}
	compact := jsonread.New([]byte(`{"a" :1}`))
	if compact.Raw(); compact.End() {
		t.Error("New took whitespace")
	}
	for _, bad := range []string{`"a\u0000"`, `"0123456789abcdef0123456789ABCDEF"`, `"\u0030123456789abcdef0123456789abcdef"`} {
		r := jsonread.NewBody([]byte(bad))
		if r.Text(); r.End() {
			t.Errorf("NewBody took %s", bad)
		}
	}
	for _, ok := range []string{`"0123456789abcdef0123456789abcde"`, `"0123456789abcdef0123456789abcdeg"`, `"11111111-1111-4111-8111-111111111111"`} {
		r := jsonread.NewBody([]byte(ok))
		if r.Text(); !r.End() {
			t.Errorf("NewBody refused %s", ok)
		}
	}
	r = jsonread.NewBody([]byte(`{"a":1,"a":2}`))
	var seen uint64
	r.Open('{')
	for n := 0; r.More('}', n); n++ {
		r.Key()
		if r.Once(&seen, 0) {
			r.Float()
		}
	}
	if r.End() {
		t.Error("Once took a key met twice")
	}
}
