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

// BenchmarkIndexStoredUpload scans a page of 100 paragraph children as the children route
// answers them (90 KB, no upload): the scan every such answer pays.
func BenchmarkIndexStoredUpload(b *testing.B) {
	const block = `{"object":"block","id":"01a22140-15a8-7eaa-9623-ab9e55092a2e","parent":{"type":"page_id","page_id":"01a22140-1597-7749-a758-e1bc963adf39"},` +
		`"created_time":"2026-11-28T08:22:57.700Z","last_edited_time":"2026-11-28T08:22:57.700Z","created_by":{"object":"user","id":"01a22140-1175-7f79-a94b-7d22f82ae591"},` +
		`"last_edited_by":{"object":"user","id":"01a22140-1175-7f79-a94b-7d22f82ae591"},"has_children":false,"in_trash":false,"type":"paragraph","paragraph":` +
		`{"rich_text":[{"type":"text","text":{"content":"alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima 0","link":null},` +
		`"annotations":{"bold":false,"italic":false,"strikethrough":false,"underline":false,"code":false,"text_color":"default","background_color":"default"},` +
		`"plain_text":"alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima 0","href":null}],"text_color":"default","background_color":"default"}}`
	body := []byte(`{"object":"list","results":[` + strings.Repeat(block+",", 99) + block + `],"next_cursor":null,"has_more":false}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if indexStoredUpload(body) >= 0 {
			b.Fatal("found an upload in a page without one")
		}
	}
}
