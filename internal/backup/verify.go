package backup

import (
	"archive/tar"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// ErrCorrupt marks an archive that is damaged, altered or not a Quire backup.
var ErrCorrupt = errors.New("archive is damaged or altered")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// walk calls fn for each entry of the .tar.gz at path, in order. Damage the gzip layer finds
// (its checksum, a cut) is reported as ErrCorrupt.
func walk(path string, fn func(h *tar.Header, r io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := decompressor(f)
	if err != nil {
		return err
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return corrupt("reading the archive: %v", err)
		}
		if h.Typeflag != tar.TypeReg {
			return corrupt("entry %s is not a regular file", h.Name)
		}
		if err := fn(h, tr); err != nil {
			if damaged(err) {
				return corrupt("reading %s: %v", h.Name, err)
			}
			return err
		}
	}
	// The gzip trailer's CRC is checked only once the stream is read to its end.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return corrupt("reading the archive: %v", err)
	}
	return nil
}

// damaged tells the errors of a cut or corrupted compressed stream from those of the store.
func damaged(err error) bool {
	var flateErr flate.CorruptInputError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) ||
		errors.As(err, &flateErr) || errors.Is(err, zstd.ErrCRCMismatch) || errors.Is(err, zstd.ErrMagicMismatch) ||
		errors.Is(err, zstd.ErrBlockTooSmall) || errors.Is(err, zstd.ErrReservedBlockType) || errors.Is(err, zstd.ErrCompressedSizeTooBig)
}

// summer hashes and counts what passes through it, lines included.
type summer struct {
	h     hash.Hash
	bytes int64
	lines int64
}

func newSummer() *summer { return &summer{h: sha256.New()} }

func (s *summer) Write(p []byte) (int, error) {
	s.h.Write(p)
	s.bytes += int64(len(p))
	s.lines += int64(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}

func (s *summer) sum() string { return hex.EncodeToString(s.h.Sum(nil)) }

// check compares what was read of entry e with the manifest.
func (s *summer) check(e Entry) error {
	if s.bytes != e.Bytes || s.sum() != e.SHA256 {
		return corrupt("%s: sha256 %s (%d bytes), the manifest says %s (%d bytes)", e.Path, s.sum(), s.bytes, e.SHA256, e.Bytes)
	}
	if strings.HasPrefix(e.Path, "tables/") && s.lines != e.Rows {
		return corrupt("%s: %d rows, the manifest says %d", e.Path, s.lines, e.Rows)
	}
	return nil
}

// Verify reads the whole archive at path and checks every entry against the manifest (its
// SHA-256, size and row count), that nothing is missing or extra, and the row count of every
// table. It returns the manifest.
func Verify(path string) (*Manifest, error) {
	seen := map[string]*summer{}
	var order []string
	var m *Manifest
	err := walk(path, func(h *tar.Header, r io.Reader) error {
		if m != nil {
			return corrupt("entry %s follows the manifest, which is the last entry", h.Name)
		}
		if h.Name == manifestName {
			b, err := io.ReadAll(io.LimitReader(r, 256<<20))
			if err != nil {
				return err
			}
			if m, err = parseManifest(b); err != nil {
				return corrupt("%v", err)
			}
			return nil
		}
		if seen[h.Name] != nil {
			return corrupt("entry %s appears twice", h.Name)
		}
		s := newSummer()
		if _, err := io.Copy(s, r); err != nil {
			return err
		}
		seen[h.Name] = s
		order = append(order, h.Name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, corrupt("no manifest.json: the archive is cut short or not a Quire backup")
	}
	return m, m.check(seen, order)
}

// check compares the entries read with the manifest's list.
func (m *Manifest) check(seen map[string]*summer, order []string) error {
	if len(order) != len(m.Entries) {
		return corrupt("%d entries, the manifest lists %d", len(order), len(m.Entries))
	}
	rows := map[string]int64{}
	for i, e := range m.Entries {
		if order[i] != e.Path {
			return corrupt("entry %d is %s, the manifest lists %s", i+1, order[i], e.Path)
		}
		if err := seen[e.Path].check(e); err != nil {
			return err
		}
		if name, ok := chunkTable(e.Path); ok {
			rows[name] += e.Rows
		} else if !strings.HasPrefix(e.Path, "files/") {
			return corrupt("unexpected entry %s", e.Path)
		}
	}
	for name := range rows {
		if !m.hasTable(name) {
			return corrupt("chunks of table %s, which the manifest does not list", name)
		}
	}
	for _, t := range m.Tables {
		if rows[t.Name] != t.Rows {
			return corrupt("table %s: %d rows in its chunks, the manifest says %d", t.Name, rows[t.Name], t.Rows)
		}
	}
	return nil
}

// chunkTable is the table of a chunk entry tables/NAME/NNNNNN.jsonl.
func chunkTable(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "tables/")
	if !ok {
		return "", false
	}
	name, _, ok := strings.Cut(rest, "/")
	return name, ok
}
