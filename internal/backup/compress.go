package backup

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Compression is how an archive's tar stream is compressed.
type Compression string

// The two compressions, told apart by the archive's first bytes when it is read.
const (
	Gzip Compression = "gzip" // FILE.tar.gz; the default
	Zstd Compression = "zstd" // FILE.tar.zst
)

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// compressor wraps w; Close flushes the compressed stream's end (and checksum).
func compressor(w io.Writer, c Compression) (io.WriteCloser, error) {
	if c == Zstd {
		// The frame checksum is on by default: a damaged archive fails to decompress.
		return zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	}
	return gzip.NewWriter(w), nil
}

// decompressor reads r as whichever compression its first bytes name.
func decompressor(r io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(4)
	if bytes.Equal(head, zstdMagic) {
		d, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		return d.IOReadCloser(), nil
	}
	gz, err := gzip.NewReader(br)
	if err != nil {
		return nil, corrupt("neither a gzip nor a zstd file: %v", err)
	}
	return gz, nil
}
