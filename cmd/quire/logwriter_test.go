package main

import (
	"strings"
	"testing"
	"time"
)

// TestLogWriter_FlushesAfterALine: a line is written out by the timer its arrival armed, with
// the lines that followed it; once flushed, nothing is armed until the next line (an idle
// server wakes for no flush); Close writes what is left.
func TestLogWriter_FlushesAfterALine(t *testing.T) {
	var out syncBuffer
	l := newLogWriter(&out)
	for range 2 {
		l.Write([]byte("one\n"))
		l.Write([]byte("two\n"))
		for deadline := time.Now().Add(10 * time.Second); strings.Count(out.String(), "two\n") < 1 || l.isArmed(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("not flushed: %q, armed %v", out.String(), l.isArmed())
			}
		}
		out.mu.Lock()
		got := out.b.String()
		out.b.Reset()
		out.mu.Unlock()
		if got != "one\ntwo\n" {
			t.Fatalf("flushed %q", got)
		}
	}
	l.Write([]byte("last\n"))
	if err := l.Close(); err != nil || out.String() != "last\n" {
		t.Fatalf("after Close: %q, %v", out.String(), err)
	}
}

func (l *logWriter) isArmed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.armed
}
