package filestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Local keeps files in a folder: finished files at DIR/ab/KEY (ab: the key's first two
// characters, so no folder grows too large), an upload in progress at DIR/partial/KEY.part
// until it is complete and synced, then renamed into place.
type Local struct {
	dir string
}

// NewLocal returns a backend in dir, creating it when missing.
func NewLocal(dir string) (*Local, error) {
	if err := os.MkdirAll(filepath.Join(dir, "partial"), 0o700); err != nil {
		return nil, fmt.Errorf("create file folder: %w", err)
	}
	return &Local{dir: dir}, nil
}

// validKey accepts the keys Quire makes (ids: letters, digits and dashes), so that no key can
// name a path outside the folder.
func validKey(key string) bool {
	if len(key) < 3 || len(key) > 100 {
		return false
	}
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func (l *Local) path(key string) string    { return filepath.Join(l.dir, key[:2], key) }
func (l *Local) partial(key string) string { return filepath.Join(l.dir, "partial", key+".part") }

// Put writes r to the partial file, checks its size, syncs it and renames it into place.
func (l *Local) Put(ctx context.Context, key string, r io.Reader, size int64, _ string) error {
	return l.put(ctx, key, newSizedReader(r, size))
}

// PutUpTo is Put for a body of unknown length, at most max bytes.
func (l *Local) PutUpTo(ctx context.Context, key string, r io.Reader, max int64, _ string) (int64, error) {
	cr := newCappedReader(r, max)
	if err := l.put(ctx, key, cr); err != nil {
		return 0, err
	}
	return cr.n, nil
}

// put writes r, which checks its own length, to the partial file, syncs it and renames it
// into place.
func (l *Local) put(ctx context.Context, key string, r io.Reader) (err error) {
	if !validKey(key) {
		return fmt.Errorf("filestore: invalid key %q", key)
	}
	part := l.partial(key)
	f, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(part)
		}
	}()
	if _, err = io.Copy(f, ctxReader{ctx, r}); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	dir := filepath.Dir(l.path(key))
	_, statErr := os.Stat(dir)
	if err = os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err = os.Rename(part, l.path(key)); err != nil {
		return err
	}
	// A rename survives a power cut only once the folder holding the new name is synced, and a
	// new folder only once its parent is: without that the store could list as uploaded a
	// file that the disk lost.
	if err = syncDir(dir); err == nil && statErr != nil {
		err = syncDir(l.dir)
	}
	if err != nil {
		os.Remove(l.path(key))
	}
	return err
}

func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil // a folder cannot be opened for syncing there
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}

// Remove deletes the file and its partial bytes.
func (l *Local) Remove(_ context.Context, key string) error {
	if !validKey(key) {
		return fmt.Errorf("filestore: invalid key %q", key)
	}
	var errs []error
	for _, p := range []string{l.partial(key), l.path(key)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// PresignGet answers "": Quire serves local files itself.
func (l *Local) PresignGet(context.Context, string, time.Time) (string, error) { return "", nil }

// Open opens a finished file.
func (l *Local) Open(_ context.Context, key string) (io.ReadSeekCloser, int64, error) {
	if !validKey(key) {
		return nil, 0, fmt.Errorf("filestore: invalid key %q", key)
	}
	f, err := os.Open(l.path(key))
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// Dir is the backend's folder.
func (l *Local) Dir() string { return l.dir }

// Partials lists the keys of partial files, for tests and the cleanup check.
func (l *Local) Partials() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(l.dir, "partial"))
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, e := range entries {
		keys = append(keys, strings.TrimSuffix(e.Name(), ".part"))
	}
	return keys, nil
}

// Exists reports whether a finished file is stored under key.
func (l *Local) Exists(key string) bool {
	if !validKey(key) {
		return false
	}
	_, err := os.Stat(l.path(key))
	return err == nil
}

// ctxReader stops a copy when ctx ends (a client that stalls, a server shutting down).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
