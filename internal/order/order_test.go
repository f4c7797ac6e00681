package order

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBetween_Table(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"", "", "a0"},
		{"a0", "", "a1"},
		{"a1", "", "a2"},
		{"", "a0", "Zz"},
		{"a0", "a1", "a0V"},
		{"a1", "a2", "a1V"},
		{"a0V", "a1", "a0l"},
		{"Zz", "a0", "ZzV"},
		{"Zz", "a1", "a0"},
		{"az", "", "b00"},
		{"a0", "a0V", "a0G"},
	} {
		got, err := Between(tc.a, tc.b)
		if err != nil || got != tc.want {
			t.Errorf("Between(%q, %q) = %q, %v; want %q", tc.a, tc.b, got, err, tc.want)
		}
	}
	for _, tc := range [][2]string{{"a1", "a0"}, {"a0", "a0"}, {"x", ""}, {"a00", ""}, {"a0!", ""}} {
		if _, err := Between(tc[0], tc[1]); err == nil {
			t.Errorf("Between(%q, %q) succeeded, want an error", tc[0], tc[1])
		}
	}
}

// TestBetween_RandomInserts inserts at random places many times and checks that the list stays
// strictly ordered, every key is valid, and appends stay short.
func TestBetween_RandomInserts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var keys []string
	for range 5000 {
		i := r.IntN(len(keys) + 1)
		a, b := "", ""
		if i > 0 {
			a = keys[i-1]
		}
		if i < len(keys) {
			b = keys[i]
		}
		k, err := Between(a, b)
		if err != nil {
			t.Fatalf("Between(%q, %q): %v", a, b, err)
		}
		if !Valid(k) || (a != "" && k <= a) || (b != "" && k >= b) {
			t.Fatalf("Between(%q, %q) = %q: out of order or invalid", a, b, k)
		}
		keys = slices.Insert(keys, i, k)
	}
	if !slices.IsSorted(keys) {
		t.Fatal("keys not sorted")
	}
}

func TestAppendsStayShort(t *testing.T) {
	keys, err := NBetween("", "", 100_000)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(keys) || len(keys[len(keys)-1]) > 5 {
		t.Fatalf("100k appends: sorted=%v, last key %q", slices.IsSorted(keys), keys[len(keys)-1])
	}
	// Prepends too.
	prev, err := NBetween("", keys[0], 1000)
	if err != nil || !slices.IsSorted(append(prev, keys[0])) {
		t.Fatalf("prepends: %v", err)
	}
}

func TestNBetween(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 1000} {
		got, err := NBetween("a0", "a1", n)
		if err != nil || len(got) != n {
			t.Fatalf("NBetween(n=%d): %d keys, %v", n, len(got), err)
		}
		all := append(append([]string{"a0"}, got...), "a1")
		for i := 1; i < len(all); i++ {
			if all[i-1] >= all[i] {
				t.Fatalf("n=%d: %q !< %q", n, all[i-1], all[i])
			}
		}
		for _, k := range got {
			if len(k) > 12 {
				t.Fatalf("n=%d: key %q too long", n, k)
			}
		}
	}
}

func FuzzBetween(f *testing.F) {
	f.Add("a0", "a1")
	f.Add("", "Zz")
	f.Add("a0V", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		k, err := Between(a, b)
		if err != nil {
			return
		}
		if !Valid(k) || (a != "" && k <= a) || (b != "" && k >= b) {
			t.Fatalf("Between(%q, %q) = %q", a, b, k)
		}
	})
}
