package transfer

import (
	"archive/zip"
	"context"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// Source is what an import reads: a folder, or a zip file read in place.
type Source struct {
	fs.FS
	closer io.Closer
}

// Close releases a zip file.
func (s *Source) Close() error {
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}

// OpenSource opens from: a .zip file or a folder.
func OpenSource(from string) (*Source, error) {
	if strings.HasSuffix(strings.ToLower(from), ".zip") {
		z, err := zip.OpenReader(from)
		if err != nil {
			return nil, err
		}
		return &Source{FS: z, closer: z}, nil
	}
	st, err := os.Stat(from)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: from, Err: fs.ErrInvalid}
	}
	return &Source{FS: os.DirFS(from)}, nil
}

// Format names what an import found in its source.
const (
	FormatQuire  = "quire"  // an export of quire export
	FormatNotion = "notion" // a Notion "Markdown & CSV" export
	FormatFolder = "folder" // a folder of Markdown files
)

// notionName is a Notion export's file or folder name: a title, a space, 32 hex digits.
var notionName = regexp.MustCompile(`^(.*) ([0-9a-f]{32})(\.md|\.csv|_all\.csv)?$`)

// Detect tells the three formats apart: the manifest of an export, else Notion's names.
func Detect(fsys fs.FS) string {
	if _, err := fs.Stat(fsys, manifestName); err == nil {
		return FormatQuire
	}
	format := FormatFolder
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != "." && notionName.MatchString(d.Name()) {
			format = FormatNotion
			return fs.SkipAll
		}
		return nil
	})
	return format
}

// Import reads fsys (an export, a Notion export or a folder of Markdown) and writes it into
// the workspace of p. What cannot be read or written is listed in the summary with its
// reason, and the rest is imported. An interrupted import is re-run as it was: what the first
// run wrote is found by its id and skipped.
func Import(ctx context.Context, svc *service.Service, p *quire.Principal, fsys fs.FS, opts Options) (*Summary, error) {
	sum := &Summary{Failed: []Failure{}}
	var pl *plan
	var err error
	switch Detect(fsys) {
	case FormatQuire:
		pl, err = readNative(fsys, opts)
	case FormatNotion:
		pl, err = readTree(fsys, p, opts, sum, true)
	default:
		pl, err = readTree(fsys, p, opts, sum, false)
	}
	if err != nil {
		return nil, err
	}
	for _, f := range sum.Failed {
		opts.Progress.failed(f.Path, f.Reason)
	}
	err = execute(ctx, svc, p, fsys, pl, sum, opts.Progress)
	opts.Progress.finish()
	return sum, err
}
