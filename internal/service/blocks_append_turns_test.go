package service

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPageTurns: a second append to a page waits until the first releases its turn, an append
// to another page does not wait, a waiter whose request ends gives up with its context's error
// and leaves the turn to the next, and a page's turn is forgotten once nobody holds it.
func TestPageTurns(t *testing.T) {
	var p pageTurns
	ctx := context.Background()
	first, err := p.take(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	other, err := p.take(ctx, "b") // another page: at once
	if err != nil {
		t.Fatal(err)
	}
	other()
	gone, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() { _, err := p.take(gone, "a"); gaveUp <- err }()
	got := make(chan func(), 1)
	go func() {
		release, err := p.take(ctx, "a")
		if err != nil {
			t.Error(err)
		}
		got <- release
	}()
	select {
	case <-got:
		t.Fatal("a second append to the page took its turn while the first held it")
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("a waiter whose request ended: %v; want context.Canceled", err)
	}
	first()
	select {
	case second := <-got:
		second()
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting append never took its turn after the first released it")
	}
	if n := len(p.pages); n != 0 {
		t.Fatalf("%d pages' turns kept after every append ended; want none", n)
	}
}
