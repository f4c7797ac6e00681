package busy

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"
)

func TestGate_InFlight(t *testing.T) {
	g := New()
	a, b := g.Begin(), g.Begin()
	for _, step := range []struct {
		name string
		do   func()
		want int
	}{
		{"two begun", func() {}, 2},
		{"one ended", a, 1},
		{"the same end twice counts once", a, 1},
		{"both ended", b, 0},
		{"begun again", func() { b = g.Begin() }, 1},
		{"ended again", func() { b() }, 0},
	} {
		step.do()
		if got := g.InFlight(); got != step.want {
			t.Fatalf("%s: InFlight = %d, want %d", step.name, got, step.want)
		}
	}
}

func TestGate_WaitReturnsAtOnceWhenIdle(t *testing.T) {
	for name, g := range map[string]*Gate{"new": New(), "nil": nil} {
		start := time.Now()
		if err := g.Wait(context.Background(), time.Minute); err != nil {
			t.Fatalf("%s: Wait = %v", name, err)
		}
		if d := time.Since(start); d > 50*time.Millisecond {
			t.Fatalf("%s: Wait on an idle gate took %v", name, d)
		}
	}
	var g *Gate
	g.Begin()() // a nil gate counts nothing and does not panic
	if g.InFlight() != 0 {
		t.Fatal("nil gate has requests in flight")
	}
}

func TestGate_WaitReleasedWhenTheLastRequestEnds(t *testing.T) {
	g := New()
	endA, endB := g.Begin(), g.Begin()
	done := make(chan error, 1)
	go func() { done <- g.Wait(context.Background(), time.Minute) }()
	endA()
	select {
	case err := <-done:
		t.Fatalf("Wait returned (%v) with a request still in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	endB()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Wait = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait still waiting after the last request ended")
	}
}

// TestGate_EnterLeave: the per-request pair allocates nothing, and waiters that came while
// requests were in flight, through several busy stretches, are all released when the gate
// empties, however their Wait and the requests' Enter and Leave interleave.
func TestGate_EnterLeave(t *testing.T) {
	g := New()
	if n := testing.AllocsPerRun(100, func() { g.Enter(); g.Leave() }); n != 0 {
		t.Fatalf("Enter and Leave allocate %v times a request, want 0", n)
	}
	if g.IdleFor() > time.Second {
		t.Fatalf("IdleFor just after a request = %v", g.IdleFor())
	}
	for round := range 200 {
		g.Enter()
		g.Enter()
		done := make(chan error, 2)
		for range 2 {
			go func() { done <- g.Wait(context.Background(), time.Minute) }()
		}
		go func() { g.Leave(); g.Enter(); g.Leave() }()
		g.Leave()
		for range 2 {
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("round %d: Wait = %v", round, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: a waiter still waits on an empty gate (in flight %d)", round, g.InFlight())
			}
		}
		if g.InFlight() != 0 {
			t.Fatalf("round %d: InFlight = %d after every request left", round, g.InFlight())
		}
	}
}

func TestGate_WaitHonoursMaxWait(t *testing.T) {
	g := New()
	defer g.Begin()()
	start := time.Now()
	if err := g.Wait(context.Background(), 80*time.Millisecond); err != nil {
		t.Fatalf("Wait = %v", err)
	}
	if d := time.Since(start); d < 80*time.Millisecond || d > 5*time.Second {
		t.Fatalf("Wait with a request held open returned after %v, want about 80ms", d)
	}
}

func TestGate_WaitEndsWithItsContext(t *testing.T) {
	g := New()
	defer g.Begin()()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Wait(ctx, time.Minute) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not end with its context")
	}
	// An ended context is reported even when the gate is idle: the caller stops either way.
	if err := New().Wait(ctx, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait on an idle gate with an ended context = %v", err)
	}
}

// TestGate_IdleFor: a gate that never saw a request has been idle for ever; one with a request
// in flight not at all; after the request, for the time since it ended.
func TestGate_IdleFor(t *testing.T) {
	var none *Gate
	g := New()
	if none.IdleFor() != math.MaxInt64 || g.IdleFor() != math.MaxInt64 {
		t.Fatalf("IdleFor of a nil gate %v, of a new one %v; want the longest duration", none.IdleFor(), g.IdleFor())
	}
	end := g.Begin()
	if d := g.IdleFor(); d != 0 {
		t.Fatalf("IdleFor with a request in flight = %v, want 0", d)
	}
	before := time.Now()
	end()
	if d := g.IdleFor(); d < 0 || d > time.Since(before) {
		t.Fatalf("IdleFor just after the request = %v, want at most %v", d, time.Since(before))
	}
}

// TestPacer_SleepsOnlyNearRequests: the pacer sleeps Rest times the work since its last pause
// while a request is in flight or has just ended, and never on an idle gate or a nil one. The
// clock is the test's, so nothing is timed.
func TestPacer_SleepsOnlyNearRequests(t *testing.T) {
	for _, tc := range []struct {
		name string
		gate func() *Gate
		want []time.Duration // the sleeps asked for by three pauses, 2 ms of work apart
	}{
		{"nil gate", func() *Gate { return nil }, nil},
		{"never a request", New, nil},
		{"a request in flight", func() *Gate { g := New(); g.Begin(); return g }, []time.Duration{6 * time.Millisecond, 6 * time.Millisecond, 6 * time.Millisecond}},
		{"a request just ended", func() *Gate { g := New(); g.Begin()(); return g }, []time.Duration{6 * time.Millisecond, 6 * time.Millisecond, 6 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.gate().Pacer(time.Hour)
			clock := time.Unix(1000, 0)
			var slept []time.Duration
			p.since, p.now = clock, func() time.Time { return clock }
			p.sleep = func(d time.Duration) { slept = append(slept, d); clock = clock.Add(d) }
			for range 3 {
				clock = clock.Add(2 * time.Millisecond) // the work between two pauses
				p.Pause()
			}
			if !slices.Equal(slept, tc.want) {
				t.Fatalf("slept %v, want %v", slept, tc.want)
			}
		})
	}
	var nilPacer *Pacer
	nilPacer.Pause() // no panic
}
