package cursor

import (
	"errors"
	"testing"
)

type pos struct {
	T  int64  `json:"t"`
	ID string `json:"i"`
}

func TestCodec(t *testing.T) {
	c := New([]byte("0123456789abcdef0123456789abcdef"))
	s, err := c.Encode("users:w1", pos{T: 42, ID: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	var got pos
	if err := c.Decode(s, "users:w1", &got); err != nil || got != (pos{42, "abc"}) {
		t.Fatalf("Decode = %+v, %v", got, err)
	}
	flipped := []byte(s)
	flipped[3] ^= 1
	other := New([]byte("another secret of thirty-two byt"))
	fromOther, _ := other.Encode("users:w1", pos{T: 42, ID: "abc"})
	for name, tc := range map[string]struct{ cursor, list string }{
		"other list":     {s, "users:w2"},
		"tampered":       {string(flipped), "users:w1"},
		"other secret":   {fromOther, "users:w1"},
		"not base64":     {"%%%", "users:w1"},
		"empty":          {"", "users:w1"},
		"too short":      {"AAAA", "users:w1"},
		"truncated":      {s[:len(s)-2], "users:w1"},
		"whitespace pad": {s + " ", "users:w1"},
	} {
		t.Run(name, func(t *testing.T) {
			var p pos
			if err := c.Decode(tc.cursor, tc.list, &p); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode = %v, want ErrInvalid", err)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	c := New([]byte("0123456789abcdef0123456789abcdef"))
	good, _ := c.Encode("users:w1", pos{T: 1, ID: "x"})
	f.Add(good)
	f.Add("")
	f.Add("eyJsIjoidXNlcnM6dzEifQ")
	f.Fuzz(func(t *testing.T, s string) {
		var p pos
		if err := c.Decode(s, "users:w1", &p); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("Decode returned a foreign error: %v", err)
		}
	})
}
