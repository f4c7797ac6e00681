package service

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzIndexStoredUpload: the anchored scan finds exactly what bytes.Index finds, the first
// reference and none where there is none, around overlapping and cut-off near misses.
func FuzzIndexStoredUpload(f *testing.F) {
	ref := string(storedUpload)
	for _, s := range []string{
		"", ref, "x" + ref, `_upload":{"id":"`, ref[1:], ref[:len(ref)-1],
		`"type":"file_upload","file"_upload":{"id":"` + ref,
		strings.Repeat(`"rich_text":[{"type":"text"}],`, 50) + ref + ref,
		`"type":"file_upload","file_upload":{"id":"type":"file_upload","file_upload":{"id":"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if got, want := indexStoredUpload(body), bytes.Index(body, storedUpload); got != want {
			t.Fatalf("indexStoredUpload(%q) = %d, bytes.Index = %d", body, got, want)
		}
	})
}
