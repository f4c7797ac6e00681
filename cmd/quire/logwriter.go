package main

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// logFlushEvery is how long a log line may wait in the buffer.
const logFlushEvery = 100 * time.Millisecond

// logWriter buffers log lines and writes them out 100 ms after the first line of a batch (or
// when 64 KiB gather), so that a busy server does not make a write system call per request
// line. The flush is a timer armed by that first line, not a ticker: an idle server writes no
// lines and so wakes for none (docs/performance.md, "Background work on an idle server, sixth
// pass").
type logWriter struct {
	mu    sync.Mutex
	buf   *bufio.Writer
	timer *time.Timer
	armed bool // the timer will flush what is buffered
}

func newLogWriter(w io.Writer) *logWriter {
	l := &logWriter{buf: bufio.NewWriterSize(w, 64<<10)}
	l.timer = time.AfterFunc(time.Hour, l.flush)
	l.timer.Stop()
	return l
}

func (l *logWriter) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed = false
	_ = l.buf.Flush()
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.buf.Write(p)
	if !l.armed && l.buf.Buffered() > 0 {
		l.armed = true
		l.timer.Reset(logFlushEvery)
	}
	return n, err
}

// Close writes out what is left.
func (l *logWriter) Close() error {
	l.timer.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed = true // a flush already started finds nothing left; none is armed again
	return l.buf.Flush()
}
