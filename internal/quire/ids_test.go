package quire

import (
	"strconv"
	"testing"
	"time"
)

func TestNewID_Version7(t *testing.T) {
	before := time.Now().UnixMilli()
	id := NewID()
	after := time.Now().UnixMilli()
	if !ValidID(id) {
		t.Fatalf("NewID() = %q, not a canonical UUID", id)
	}
	if id[14] != '7' {
		t.Errorf("version nibble of %s = %c, want 7", id, id[14])
	}
	if v := id[19]; v != '8' && v != '9' && v != 'a' && v != 'b' {
		t.Errorf("variant of %s = %c, want RFC 9562 (8, 9, a or b)", id, v)
	}
	ms, err := strconv.ParseInt(id[0:8]+id[9:13], 16, 64)
	if err != nil || ms < before || ms > after {
		t.Errorf("time of %s = %d (%v), want between %d and %d", id, ms, err, before, after)
	}
}

func TestNewID_OrderedAndUnique(t *testing.T) {
	seen := map[string]bool{}
	prev := NewID()
	for range 2000 {
		id := NewID()
		if seen[id] {
			t.Fatalf("NewID repeated %s", id)
		}
		seen[id] = true
		// Within one millisecond the random part orders them; across milliseconds the time does.
		if id[:13] < prev[:13] {
			t.Fatalf("NewID went back in time: %s after %s", id, prev)
		}
		prev = id
	}
	time.Sleep(2 * time.Millisecond)
	if later := NewID(); later <= prev {
		t.Errorf("an id made 2 ms later (%s) does not sort after %s", later, prev)
	}
}

func TestDashlessID(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"0190f2a1b2c37d4e8f90a1b2c3d4e5f6", "0190f2a1-b2c3-7d4e-8f90-a1b2c3d4e5f6", true},
		{"0190F2A1B2C37D4E8F90A1B2C3D4E5F6", "0190f2a1-b2c3-7d4e-8f90-a1b2c3d4e5f6", true},
		{"0190f2a1-b2c3-7d4e-8f90-a1b2c3d4e5f6", "", false}, // canonical already: left alone
		{"0190f2a1b2c37d4e8f90a1b2c3d4e5f", "", false},
		{"0190f2a1b2c37d4e8f90a1b2c3d4e5g6", "", false},
		{"", "", false},
	} {
		got, ok := DashlessID(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("DashlessID(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
		if ok && !ValidID(got) {
			t.Errorf("DashlessID(%q) = %q, not a valid id", c.in, got)
		}
	}
}
