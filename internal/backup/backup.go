package backup

import (
	"archive/tar"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// chunkBytes bounds one table chunk, which is held in memory until it is written: a tar entry
// announces its size first, and a table's JSON lines are not known in size until read.
const chunkBytes = 4 << 20

// Options say what a backup reads besides the store, and where it reports.
type Options struct {
	FilesDir     string      // folder of uploaded files (DATA/files); "" when they live in a bucket
	Bucket       string      // the bucket of uploaded files, when they live in one: listed, not copied
	Compression  Compression // Gzip when empty
	QuireVersion string
	Progress     func(format string, args ...any) // one line per step; nil: silent
}

func (o Options) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(format, args...)
	}
}

// Backup writes a .tar.gz (or .tar.zst) archive of st to w: every carried table read inside one snapshot, so
// the archive holds every write acknowledged before Backup began and no part of any write
// that was not, while writers go on; then the bytes of the uploaded files the snapshot lists,
// and last the manifest.
func Backup(ctx context.Context, st *store.Store, w io.Writer, opts Options) (*Manifest, error) {
	zw, err := compressor(w, opts.Compression)
	if err != nil {
		return nil, err
	}
	aw := &archiveWriter{tw: tar.NewWriter(zw), now: time.Now()}
	m := &Manifest{Format: Format, FormatVersion: FormatVersion, QuireVersion: opts.QuireVersion,
		CreatedTime: quire.FormatMillis(aw.now.UnixMilli()), Engine: string(st.Engine()),
		Files: []FileInfo{}, S3Objects: []RemoteObject{}, MissingFiles: []FileInfo{}}
	var uploaded []FileInfo
	err = st.ReadSnapshot(ctx, func(sn *store.Snapshot, version int64) error {
		m.SchemaVersion = version
		opts.progress("snapshot taken (%s store, schema version %d)", st.Engine(), version)
		for _, t := range tables {
			n, err := aw.dumpTable(ctx, sn, t)
			if err != nil {
				return fmt.Errorf("table %s: %w", t.name, err)
			}
			m.Tables = append(m.Tables, TableInfo{Name: t.name, Columns: t.columns, Rows: n})
			opts.progress("%s: %d rows", t.name, n)
		}
		var err error
		uploaded, err = uploadedFiles(ctx, sn)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := aw.copyFiles(ctx, m, uploaded, opts); err != nil {
		return nil, err
	}
	m.Entries = aw.entries
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := aw.add(manifestName, b, 0); err != nil {
		return nil, err
	}
	if err := aw.tw.Close(); err != nil {
		return nil, err
	}
	return m, zw.Close()
}

// uploadedFiles lists the files whose upload completed: their bytes are final (an upload is
// renamed into place before its row says uploaded, and never changes after).
func uploadedFiles(ctx context.Context, sn *store.Snapshot) ([]FileInfo, error) {
	rows, err := sn.Query(ctx, `SELECT id, storage_key, size FROM files WHERE status = $1 ORDER BY id`, quire.FileUploaded)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FileInfo
	for rows.Next() {
		var f FileInfo
		if err := rows.Scan(&f.ID, &f.Key, &f.Size); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

type archiveWriter struct {
	tw      *tar.Writer
	now     time.Time
	entries []Entry
}

func (aw *archiveWriter) header(path string, size int64) *tar.Header {
	return &tar.Header{Name: path, Mode: 0o600, Size: size, ModTime: aw.now, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
}

// add writes one entry held in memory and notes its checksum.
func (aw *archiveWriter) add(path string, data []byte, rows int64) error {
	if err := aw.tw.WriteHeader(aw.header(path, int64(len(data)))); err != nil {
		return err
	}
	if _, err := aw.tw.Write(data); err != nil {
		return err
	}
	if path != manifestName {
		sum := sha256.Sum256(data)
		aw.entries = append(aw.entries, Entry{Path: path, Bytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), Rows: rows})
	}
	return nil
}

// dumpTable writes table t as chunks of JSON lines, one array of values per row.
func (aw *archiveWriter) dumpTable(ctx context.Context, sn *store.Snapshot, t table) (int64, error) {
	rows, err := sn.Query(ctx, `SELECT `+t.columnList()+` FROM `+cmp.Or(sources[t.name], t.name))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	vals := make([]any, len(t.columns))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var buf []byte
	var total, inChunk int64
	chunk := 0
	flush := func() error {
		if inChunk == 0 {
			return nil
		}
		chunk++
		err := aw.add(fmt.Sprintf("tables/%s/%06d.jsonl", t.name, chunk), buf, inChunk)
		buf, inChunk = buf[:0], 0
		return err
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		buf = append(buf, '[')
		for i, c := range t.columns {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = appendValue(buf, c.Kind, vals[i]); err != nil {
				return 0, fmt.Errorf("column %s: %w", c.Name, err)
			}
		}
		buf = append(buf, ']', '\n')
		total++
		inChunk++
		if len(buf) >= chunkBytes {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	return total, flush()
}

// copyFiles adds the bytes of the uploaded files from the local folder, or lists them when they
// live in a bucket. A file whose bytes are gone is listed as missing, not a failed backup: the
// rest of the store is still worth keeping.
func (aw *archiveWriter) copyFiles(ctx context.Context, m *Manifest, files []FileInfo, opts Options) error {
	if len(files) == 0 {
		return nil
	}
	if opts.FilesDir == "" {
		for _, f := range files {
			m.S3Objects = append(m.S3Objects, RemoteObject{Bucket: opts.Bucket, Key: f.Key, Size: f.Size})
		}
		opts.progress("files: %d objects in bucket %s listed, not copied", len(files), opts.Bucket)
		return nil
	}
	local, err := filestore.NewLocal(opts.FilesDir)
	if err != nil {
		return err
	}
	var bytes int64
	for _, f := range files {
		r, size, err := local.Open(ctx, f.Key)
		if errors.Is(err, fs.ErrNotExist) {
			m.MissingFiles = append(m.MissingFiles, f)
			opts.progress("warning: file %s: its bytes are missing from %s; listed in the manifest as missing", f.ID, opts.FilesDir)
			continue
		}
		if err != nil {
			return fmt.Errorf("file %s: %w", f.ID, err)
		}
		err = aw.addStream("files/"+f.Key, r, size)
		r.Close()
		if err != nil {
			return fmt.Errorf("file %s: %w", f.ID, err)
		}
		m.Files = append(m.Files, FileInfo{ID: f.ID, Key: f.Key, Size: size})
		bytes += size
	}
	opts.progress("files: %d copied (%d bytes)", len(m.Files), bytes)
	return nil
}

// addStream writes an entry of known size read from r, hashing it on the way.
func (aw *archiveWriter) addStream(path string, r io.Reader, size int64) error {
	if err := aw.tw.WriteHeader(aw.header(path, size)); err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(aw.tw, h), io.LimitReader(r, size))
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("read %d bytes of %d", n, size)
	}
	aw.entries = append(aw.entries, Entry{Path: path, Bytes: size, SHA256: hex.EncodeToString(h.Sum(nil))})
	return nil
}
