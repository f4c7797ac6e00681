package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestInTx_WriteTurns: on PostgreSQL at most the store's turns of write transactions run at
// once; a third write waits, without running any of its function, until one of two holders
// ends; a write whose request ends while it waits returns the context's error and runs nothing;
// and a write begun inside another's function, when that one holds the only turn, goes on
// after writeTurnWait instead of waiting for ever.
func TestInTx_WriteTurns(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		if s.Engine() != store.Postgres {
			t.Skip("SQLite has one write connection: its writes take turns on it")
		}
		bg := context.Background()
		defer s.SetWriteTurnsForTest(2, 10*time.Second)()
		hold := func(release chan struct{}, ended chan error) {
			began := make(chan struct{})
			go func() {
				ended <- s.InTx(bg, func(tx *store.Tx) error {
					close(began)
					<-release
					return nil
				})
			}()
			<-began
		}
		r1, r2, ended := make(chan struct{}), make(chan struct{}), make(chan error, 2)
		hold(r1, ended)
		hold(r2, ended)

		third, thirdDone := make(chan time.Time, 1), make(chan error, 1)
		go func() {
			thirdDone <- s.InTx(bg, func(tx *store.Tx) error { third <- time.Now(); return nil })
		}()
		ctx, cancel := context.WithTimeout(bg, 100*time.Millisecond)
		defer cancel()
		ran := false
		if err := s.InTx(ctx, func(tx *store.Tx) error { ran = true; return nil }); !errors.Is(err, context.DeadlineExceeded) || ran {
			t.Fatalf("write whose request ended while it waited = %v (ran %v); want the deadline's error, nothing run", err, ran)
		}
		select {
		case <-third:
			t.Fatal("a third write ran while two held the two turns")
		case <-time.After(200 * time.Millisecond):
		}
		released := time.Now()
		close(r1)
		if at := <-third; at.Before(released) {
			t.Fatal("the third write ran before a turn was free")
		}
		if err := <-thirdDone; err != nil {
			t.Fatal(err)
		}
		close(r2)
		for range 2 {
			if err := <-ended; err != nil {
				t.Fatal(err)
			}
		}

		s.SetWriteTurnsForTest(1, 300*time.Millisecond)
		start := time.Now()
		err := s.InTx(bg, func(tx *store.Tx) error {
			return s.InTx(bg, func(tx *store.Tx) error { return nil })
		})
		if took := time.Since(start); err != nil || took < 300*time.Millisecond || took > 5*time.Second {
			t.Fatalf("write inside a write holding the only turn = %v after %v; want done after writeTurnWait (300ms)", err, took)
		}
	})
}
