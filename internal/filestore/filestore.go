// Package filestore keeps the bytes of uploaded files: in a folder (the default) or in an
// S3-compatible bucket. A Backend stores and removes objects by key; the signing of upload
// and download URLs served by Quire itself lives in sign.go.
package filestore

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrTooLarge is returned by Put when the body holds more bytes than announced.
var ErrTooLarge = errors.New("filestore: body larger than the announced size")

// ErrTooShort is returned by Put when the body ends before the announced size.
var ErrTooShort = errors.New("filestore: body shorter than the announced size")

// Backend stores file bytes by key. Keys are made by Quire (Key), never from user input.
type Backend interface {
	// Put stores exactly size bytes read from r under key. Until it returns nil nothing is
	// visible under key, and on any error no bytes are left behind.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// PutUpTo stores what r holds, at most max bytes, under key and returns its length: for
	// an upload whose size was not announced. A longer body fails with ErrTooLarge; as with
	// Put, nothing is visible before it returns nil and an error leaves no bytes behind.
	PutUpTo(ctx context.Context, key string, r io.Reader, max int64, contentType string) (int64, error)
	// Remove deletes the object under key and any partial bytes of an unfinished Put; a
	// missing object is not an error.
	Remove(ctx context.Context, key string) error
	// PresignGet returns a URL that reads key without a token until expires, or "" when the
	// backend's files are served by Quire itself (Open).
	PresignGet(ctx context.Context, key string, expires time.Time) (string, error)
	// Open returns the stored object for Quire to serve, with its size; it fails for a
	// backend that presigns.
	Open(ctx context.Context, key string) (io.ReadSeekCloser, int64, error)
}

// Key is the storage key of file id: its own id, so that a key never holds user input and a
// URL can be made from an id alone.
func Key(id string) string { return id }

// sizedReader reads exactly size bytes from r: a read past size fails with ErrTooLarge and an
// early end with ErrTooShort. It reads at most size+1 bytes from r.
type sizedReader struct {
	r     io.Reader
	left  int64 // bytes still expected (at most, when upTo)
	n     int64 // bytes read
	short bool  // the body ended early
	upTo  bool  // an early end is the body's end (newCappedReader)
}

func newSizedReader(r io.Reader, size int64) *sizedReader { return &sizedReader{r: r, left: size} }

// newCappedReader reads r to its end, which may come before max bytes; past max it fails with
// ErrTooLarge, as a sizedReader does.
func newCappedReader(r io.Reader, max int64) *sizedReader {
	return &sizedReader{r: r, left: max, upTo: true}
}

func (s *sizedReader) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, endsHere(s.r)
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.r.Read(p)
	s.left -= int64(n)
	s.n += int64(n)
	if err == io.EOF {
		if s.upTo {
			return n, io.EOF
		}
		if s.left > 0 {
			s.short = true
			return n, ErrTooShort
		}
		return n, nil // the check above runs on the next read
	}
	return n, err
}

// finish checks, after a consumer stopped at size bytes, that r holds nothing more.
func (s *sizedReader) finish() error {
	if s.left > 0 {
		return ErrTooShort
	}
	if err := endsHere(s.r); err != io.EOF {
		return err
	}
	return nil
}

// endsHere reads one more byte to tell whether r really ends where its length said: io.EOF
// when it does, ErrTooLarge when it holds more, or the read's own error.
func endsHere(r io.Reader) error {
	var one [1]byte
	n, err := io.ReadFull(r, one[:])
	switch {
	case n > 0:
		return ErrTooLarge
	case err == io.ErrUnexpectedEOF:
		return io.EOF
	}
	return err
}
