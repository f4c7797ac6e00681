package service

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
)

// storedUpload starts the stored form of a file reference inside canonical JSON, in a media
// block's content and in an icon or cover alike.
var storedUpload = []byte(`"type":"file_upload","file_upload":{"id":"`)

// PresentFiles rewrites every stored upload reference in a JSON answer into the read shape
// {"type":"file","file":{"url":…,"expiry_time":…,"oss_name":…}} with a freshly signed URL. Stored content
// is canonical JSON spliced into answers unparsed, so this runs on the bytes: inside a JSON
// string a quote is escaped, so the pattern, preceded by { or , and followed by an id and "},
// only ever matches a real object. Answers without a file pass through untouched. Signing is
// given presentTimeout beyond ctx, counted only once a reference is found: most answers have
// none, and a timer per answer cost more than the scan of a page GET's.
func (s *Service) PresentFiles(ctx context.Context, body []byte) []byte {
	i := indexStoredUpload(body)
	if i < 0 {
		return body
	}
	ctx, cancel := context.WithTimeout(ctx, presentTimeout)
	defer cancel()
	exp := time.Now().Add(DownloadTTL).Truncate(time.Second)
	expiry := quire.FormatMillis(exp.UnixMilli())
	out := make([]byte, 0, len(body)+256)
	for i >= 0 {
		start := i
		end := start + len(storedUpload) + 36
		if start == 0 || (body[start-1] != '{' && body[start-1] != ',') || end+2 > len(body) ||
			!quire.ValidID(string(body[end-36:end])) || string(body[end:end+2]) != `"}` {
			// Not a reference after all: keep it and look further.
			out = append(out, body[:start+1]...)
			body = body[start+1:]
		} else {
			id := string(body[end-36 : end])
			u, err := s.FileURL(ctx, id, exp)
			out = append(out, body[:start]...)
			if err != nil {
				out = append(out, body[start:end+2]...) // left as stored; the next read retries
			} else {
				out = append(out, `"type":"file","file":{"url":`...)
				out = appendJSONString(out, u)
				out = append(out, `,"expiry_time":"`...)
				out = append(out, expiry...)
				// oss_name names the upload when the object is written back, as the original
				// service's clients do.
				out = append(out, `","oss_name":"`...)
				out = append(out, id...)
				out = append(out, `"}`...)
			}
			body = body[end+2:]
		}
		i = indexStoredUpload(body)
	}
	return append(out, body...)
}

// presentTimeout bounds the signing of one answer's file URLs.
const presentTimeout = 10 * time.Second

// uploadBrace is where storedUpload's only brace is.
var uploadBrace = bytes.IndexByte(storedUpload, '{')

// indexStoredUpload is bytes.Index(body, storedUpload), found through the pattern's one brace:
// bytes.Index steps from one occurrence of a pattern's first byte to the next, and
// storedUpload starts with a quote, which a JSON answer has every few bytes. A brace is the
// rarest of its bytes in an answer (one in 110 bytes of a page of paragraphs; an underscore,
// the anchor before, one in 56), and each is checked where it stands, without a new
// bytes.Index call: on a page of 100 paragraph blocks (90 KB) the scan takes a third of the
// time the underscore's did (BenchmarkIndexStoredUpload), and every such answer is scanned.
func indexStoredUpload(body []byte) int {
	for from := uploadBrace; from < len(body); {
		j := bytes.IndexByte(body[from:], '{')
		if j < 0 {
			return -1
		}
		if k := from + j - uploadBrace; bytes.HasPrefix(body[k:], storedUpload) {
			return k
		}
		from += j + 1
	}
	return -1
}

func appendJSONString(dst []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep & in URLs readable
	_ = enc.Encode(s)
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// presentBlockFile gives an uploaded file of a block a signed URL, for renderers (Markdown
// export) that read a block's content rather than its JSON.
func (s *Service) presentBlockFile(ctx context.Context, b *blocks.Block) {
	f := b.Content.File
	if f == nil || f.Type != "file_upload" {
		return
	}
	if u, err := s.FileURL(ctx, f.ID, time.Now().Add(DownloadTTL).Truncate(time.Second)); err == nil {
		b.Content.File = &blocks.FileSource{Type: "file", URL: u}
	}
}
