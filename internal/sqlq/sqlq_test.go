package sqlq

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestArgs(t *testing.T) {
	a := NewArgs("ws")
	got := []string{a.Arg(7), In(a, []string{"x", "y"}), In(a, []string(nil))}
	if want := []string{"$2", "$3, $4", ""}; !cmp.Equal(got, want) {
		t.Errorf("placeholders %q, want %q", got, want)
	}
	if want := []any{"ws", 7, "x", "y"}; !cmp.Equal(a.List, want) {
		t.Errorf("arguments %v, want %v", a.List, want)
	}
	p := &Args{Plain: true}
	if got := In(p, []int{1, 2, 3}); got != "?, ?, ?" || len(p.List) != 3 {
		t.Errorf("plain In = %q with %d arguments, want \"?, ?, ?\" with 3", got, len(p.List))
	}
}

func TestReach(t *testing.T) {
	a := NewArgs("ws")
	cte := Reach(a, "tok")
	if !strings.HasPrefix(cte, "reach (id) AS (") || !strings.Contains(cte, "g.token_id = $2") || !cmp.Equal(a.List, []any{"ws", "tok"}) {
		t.Errorf("Reach = %q with %v; want the table reach naming the token as $2", cte, a.List)
	}
}
