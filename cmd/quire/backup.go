package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/quire-dev/quire/internal/backup"
)

const backupSynopsis = `backup --out FILE.tar.gz|FILE.tar.zst [--data DIR | --database-url URL] [--s3-endpoint URL --s3-bucket NAME]

Writes one consistent archive of the store while servers keep taking writes: every table read
inside one snapshot (an SQLite read transaction, or a PostgreSQL REPEATABLE READ one), the
uploaded files kept under DATA/files, and a manifest (versions, row counts, SHA-256 of every
entry). Files kept in a bucket are listed in the manifest, not copied. The archive is written to
FILE.partial and renamed to FILE once complete and synced. "quire restore" loads it onto either
engine. The name's ending chooses the compression: .tar.gz (gzip) or .tar.zst (zstd).
See docs/backup.md.`

const restoreSynopsis = `restore --in FILE.tar.gz|FILE.tar.zst [--data DIR | --database-url URL] [--force]

Loads an archive made by "quire backup" into the store (either engine, whichever made the
archive), after checking every entry against the manifest's checksums. A store that already
holds content is refused unless --force, which replaces that content. All rows are written in
one transaction: a failed restore leaves the store as it was. Archived file bytes go to
DATA/files. Stop the servers of the target store first. See docs/backup.md.`

// backupCmd runs "quire backup".
func backupCmd(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := newFlags("backup", backupSynopsis, stderr)
	var sf storeFlags
	sf.add(fs)
	var ff fileFlags
	ff.add(fs)
	out := fs.String("out", "", "the archive to write, FILE.tar.gz or FILE.tar.zst (required)")
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if err := required(fs, "out"); err != nil {
		return err
	}
	var compression backup.Compression
	switch {
	case strings.HasSuffix(*out, ".tar.gz"), strings.HasSuffix(*out, ".tgz"):
		compression = backup.Gzip
	case strings.HasSuffix(*out, ".tar.zst"):
		compression = backup.Zstd
	default:
		return fmt.Errorf("--out %s: name the archive FILE.tar.gz (gzip) or FILE.tar.zst (zstd)", *out)
	}
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	opts := backup.Options{QuireVersion: quireVersion(), Compression: compression, Progress: progressTo(stderr, "backup")}
	if ff.s3Endpoint == "" && ff.s3Bucket == "" {
		opts.FilesDir = filepath.Join(sf.data, "files")
	} else {
		opts.Bucket = ff.s3Bucket
	}
	partial := *out + ".partial"
	f, err := os.OpenFile(partial, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	m, err := backup.Backup(ctx, st, f, opts)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(partial, *out)
	}
	if err != nil {
		os.Remove(partial)
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(stderr, "backup: wrote %s (%d entries, %d files, %d workspaces, %d pages and databases, %d blocks)\n",
		*out, len(m.Entries), len(m.Files), m.Rows("workspaces"), m.Rows("nodes"), m.Rows("blocks"))
	return nil
}

// restoreCmd runs "quire restore".
func restoreCmd(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := newFlags("restore", restoreSynopsis, stderr)
	var sf storeFlags
	sf.add(fs)
	in := fs.String("in", "", "the archive to load, made by quire backup (required)")
	force := fs.Bool("force", false, "replace the content of a store that holds some")
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if err := required(fs, "in"); err != nil {
		return err
	}
	if _, err := os.Stat(*in); err != nil {
		return fmt.Errorf("--in: %w", err)
	}
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = backup.Restore(ctx, st, *in, backup.RestoreOptions{FilesDir: filepath.Join(sf.data, "files"), Force: *force,
		Progress: progressTo(stderr, "restore")})
	switch {
	case errors.Is(err, backup.ErrNotEmpty):
		return fmt.Errorf("restore: %w (it holds workspaces); pass --force to replace its content, or name an empty --data or --database-url", err)
	case errors.Is(err, backup.ErrCorrupt):
		return fmt.Errorf("restore: %s: %w; nothing was restored", *in, err)
	case err != nil:
		return fmt.Errorf("restore: %w; nothing was restored", err)
	}
	fmt.Fprintf(stderr, "restore: done; \"quire serve\" opens the store\n")
	return nil
}

// progressTo writes one progress line per step to stderr.
func progressTo(stderr io.Writer, name string) func(format string, args ...any) {
	return func(format string, args ...any) {
		fmt.Fprintf(stderr, name+": "+format+"\n", args...)
	}
}

// quireVersion is the module version of the running binary, "(devel)" when built from a checkout.
func quireVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return "unknown"
}
