package service

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// A write names an uploaded file as {"type":"file_upload","file_upload":{"id":…}}, or as
// the {"type":"file","file":{"url":…}} it read back, or by that object's oss_name alone
// (the original service's shape). Both are stored as file_upload, checked
// against the workspace's complete uploads, and recorded as uses of the page (file_uses).

// fileRefs collects the uploads a write names, each at its request path.
type fileRefs struct {
	p    quire.Problems
	ids  []string
	path []string // of ids[i]: where the request named it
}

// source turns one file object at path into its stored form and records the upload it names.
func (r *fileRefs) source(f *blocks.FileSource, path string) {
	switch f.Type {
	case "file_upload":
		r.ids, r.path = append(r.ids, f.ID), append(r.path, path+".file_upload.id")
	case "file":
		if f.ID != "" {
			r.ossName(f, path+".file.oss_name")
			return
		}
		id, ok := fileIDFromURL(f.URL)
		if !ok {
			r.p.Add(path+".file.url", quire.ReasonInvalidValue,
				"A file object names a file of this server by the url it was read back with; upload other files first.")
			return
		}
		*f = blocks.FileSource{Type: "file_upload", ID: id}
		r.ids, r.path = append(r.ids, id), append(r.path, path+".file.url")
	}
}

// ossName records the upload a file object names by oss_name (the upload's id, as the
// upload-url answer and every read give it) and turns the object into its stored form.
func (r *fileRefs) ossName(f *blocks.FileSource, path string) {
	if !quire.ValidID(f.ID) {
		r.p.Add(path, quire.ReasonInvalidValue, "oss_name names an upload of this workspace by the oss_name the upload-url answer gave.")
		return
	}
	id := strings.ToLower(f.ID)
	*f = blocks.FileSource{Type: "file_upload", ID: id}
	r.ids, r.path = append(r.ids, id), append(r.path, path)
}

// blocks records the files of a forest of new or changed blocks at path ("children").
func (r *fileRefs) blocks(bs []*blocks.Block, path string) {
	for i, b := range bs {
		r.block(b, path+"["+strconv.Itoa(i)+"]."+b.Type)
	}
}

// block records the files of one block whose type object is at path ("children[2].image").
func (r *fileRefs) block(b *blocks.Block, path string) {
	if b.Content.File != nil {
		r.source(b.Content.File, path)
	}
	if ic := b.Content.Icon; ic != nil && ic.File != nil {
		r.source(ic.File, path+".icon")
	}
	r.blocks(b.Children, b.ChildrenPath(path))
}

// icon records the file of a page's icon or cover (canonical JSON at path) and rewrites a
// file object to its stored form.
func (r *fileRefs) icon(raw *json.RawMessage, path string) {
	if raw == nil || len(*raw) == 0 {
		return
	}
	var w struct {
		Type       string `json:"type"`
		FileUpload struct {
			ID string `json:"id"`
		} `json:"file_upload"`
		File struct {
			URL     string `json:"url"`
			OssName string `json:"oss_name"`
		} `json:"file"`
	}
	if json.Unmarshal(*raw, &w) != nil {
		return
	}
	f := &blocks.FileSource{Type: w.Type, ID: w.FileUpload.ID + w.File.OssName, URL: w.File.URL}
	before := len(r.ids)
	r.source(f, path)
	if len(r.ids) > before {
		*raw = json.RawMessage(`{"type":"file_upload","file_upload":{"id":"` + f.ID + `"}}`)
	}
}

// use checks, inside the write's transaction, that every named upload is complete and in
// the caller's workspace, and records page as using them. Every problem is answered at once.
func (r *fileRefs) use(ctx context.Context, tx *store.Tx, ws, page string) error {
	if len(r.ids) > 0 {
		ok, err := tx.UploadedFiles(ctx, ws, r.ids)
		if err != nil {
			return err
		}
		for i, id := range r.ids {
			if !ok[id] {
				r.p.Add(r.path[i], quire.ReasonInvalidValue, "Not a completed upload of this workspace: upload its bytes to the upload_url first.")
			}
		}
	}
	if err := r.p.Err(); err != nil {
		return err
	}
	return tx.AddFileUses(ctx, page, r.ids)
}

// fileIDFromURL reads the file id out of a URL this server handed out: Quire's own
// /v2/files/{id}/content, or a presigned bucket URL whose key (its last segment) is the id.
func fileIDFromURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	segs := strings.Split(strings.TrimSuffix(u.Path, "/"), "/")
	n := len(segs)
	if n >= 4 && segs[n-1] == "content" && segs[n-3] == "files" && segs[n-4] == "v2" && quire.ValidID(segs[n-2]) {
		return strings.ToLower(segs[n-2]), true
	}
	if n >= 2 && quire.ValidID(segs[n-1]) && u.Query().Get("X-Amz-Signature") != "" {
		return strings.ToLower(segs[n-1]), true
	}
	return "", false
}
